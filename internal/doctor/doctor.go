// Package doctor is agent doctor: one line per thing agent needs on this
// machine (config, provider, credential, HTTPS and WebSocket reachability,
// sandbox per mode, MCP servers, AGENT_HOME, companion programs), each
// failure with its fix.
package doctor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/companion"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/session/hooks"
	"github.com/agentcli/agent/tools/mcp"
	"github.com/agentcli/agent/tools/sandbox"
	"github.com/agentcli/agent/transport/ws"
)

// Check statuses. A warning is worth reading but does not stop agent from
// working; only a failure makes doctor exit non-zero.
const (
	checkOK      = "ok"
	checkWarn    = "warn"
	checkFailed  = "failed"
	checkSkipped = "skipped"
)

// doctorTimeout bounds each network check.
const doctorTimeout = 15 * time.Second

// check is one line of agent doctor's report.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Fix says what to do, for a warning or a failure, or for a missing
	// companion program not needed now.
	Fix string `json:"fix,omitempty"`
}

// doctorReport is agent doctor's --json output.
type doctorReport struct {
	OK     bool    `json:"ok"`
	Checks []check `json:"checks"`
}

// Options are what agent doctor checks under.
type Options struct {
	// Env is the process's environment; its Stderr gets the notices of
	// opening the credential store.
	Env setup.Env
	// Stdout receives the report; StdoutTTY says it is a terminal (text
	// from outside is then sanitized).
	Stdout    io.Writer
	StdoutTTY bool
	Flags     setup.Flags
	// Probes replace the checks of the kernel (tests simulate other
	// kernels); zero runs the real ones.
	Probes sandbox.Probes
	// Self is agent's executable: its companion programs are looked for
	// beside it, else on PATH (companion.Find).
	Self    string
	Version string // agent's, for the MCP servers' handshake
	Offline bool   // skip the checks that use the network
	JSON    bool   // print the report as JSON
}

// Run runs every check and prints the report. Its error, when a check
// failed, is an *exitcode.Error with exit code 1.
func Run(ctx context.Context, o Options) error {
	checks := doctorChecks(ctx, o)
	rep := doctorReport{OK: true, Checks: checks}
	failed := 0
	for _, c := range checks {
		if c.Status == checkFailed {
			rep.OK = false
			failed++
		}
	}
	if o.JSON {
		enc := json.NewEncoder(o.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printDoctor(o.Stdout, rep, o.StdoutTTY)
	}
	if !rep.OK {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))}
	}
	return nil
}

// printDoctor writes the report for people. Details carry text from
// outside (an MCP server's tool names and errors, a server's answer): on a
// terminal (tty) they go through termtext, as exec's output does.
func printDoctor(w io.Writer, rep doctorReport, tty bool) {
	safe := func(s string) string { return s }
	if tty {
		safe = termtext.Sanitize
	}
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	failed := 0
	for _, c := range rep.Checks {
		mark := map[string]string{checkOK: "ok  ", checkWarn: "warn", checkFailed: "FAIL", checkSkipped: "skip"}[c.Status]
		fmt.Fprintf(w, "%s  %-*s  %s\n", mark, width, safe(c.Name), safe(c.Detail))
		if c.Fix != "" {
			fmt.Fprintf(w, "      %-*s  fix: %s\n", width, "", safe(c.Fix))
		}
		if c.Status == checkFailed {
			failed++
		}
	}
	switch failed {
	case 0:
		fmt.Fprintln(w, "All checks hold.")
	case 1:
		fmt.Fprintln(w, "1 check failed.")
	default:
		fmt.Fprintf(w, "%d checks failed.\n", failed)
	}
}

// doctorChecks runs the checks in report order.
func doctorChecks(ctx context.Context, o Options) []check {
	env := o.Env
	var out []check
	add := func(c check) { out = append(out, c) }
	h, err := config.FindHome(env.Getenv)
	if err != nil {
		return append(out, check{Name: "agent home", Status: checkFailed, Detail: err.Error(), Fix: "set AGENT_HOME"})
	}
	home := h.Dir
	add(check{Name: "home", Status: checkOK, Detail: h.Describe()})
	add(homeCheck(home))
	cfg, err := config.Load(o.Flags.ConfigOptions(home))
	if err != nil {
		add(check{Name: "config", Status: checkFailed, Detail: err.Error(),
			Fix: "correct the key named above (config.toml.example lists every key); the other checks need the config"})
		return out
	}
	if cfg.Path == "" {
		add(check{Name: "config", Status: checkOK, Detail: "no config file in " + home + "; defaults apply"})
	} else {
		detail := "read " + cfg.Path
		if cfg.Profile != "" {
			detail += ", profile " + cfg.Profile
		}
		if cfg.ProfilePath != "" {
			detail += " from " + cfg.ProfilePath
		}
		add(check{Name: "config", Status: checkOK, Detail: detail})
	}
	// The Codex keys agent ignores: each is said, none fails the run.
	for _, w := range cfg.Warnings {
		add(check{Name: "config key", Status: checkWarn, Detail: w.String(),
			Fix: "remove the key, or keep it for Codex (config.toml.example lists what agent ignores)"})
	}
	p := cfg.Provider
	if t := o.Flags.Transport; t != "" {
		p.Transport = t
	}
	what := fmt.Sprintf("%s (%s) · model %s · transport %s", p.ID, orNone(p.APIRoot()), cfg.Model, orNone(p.Transport))
	if p.Demo {
		what = fmt.Sprintf("%s (the offline demo provider: scripted answers, no key, no network) · model %s", p.ID, cfg.Model)
	}
	add(check{Name: "provider", Status: checkOK, Detail: what})
	out = append(out, networkChecks(ctx, env, cfg, p, home, o.Offline)...)
	out = append(out, fallbackChecks(env, cfg, home)...)
	out = append(out, sandboxChecks(ctx, o.Probes, cfg)...)
	out = append(out, mcpChecks(ctx, o, cfg, o.Offline)...)
	out = append(out, hookChecks(cfg, home, env.Getenv("PWD"))...)
	return append(out, companionChecks(o.Self, cfg)...)
}

// hookChecks reads the hooks of the home and the current project: a file
// that cannot be read or a hook that is wrong fails; a hook waiting for
// trust (or changed since) warns, with how to review it.
func hookChecks(cfg config.Config, home, cwd string) []check {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	set := hooks.Discover(setup.HookSources(cfg, home, cwd, false))
	var out []check
	for _, w := range set.Warnings {
		out = append(out, check{Name: "hooks", Status: checkFailed, Detail: w, Fix: "correct the file named (docs/codex-compat.md, Hooks)"})
	}
	trusted := 0
	for _, h := range set.All {
		switch {
		case !h.Enabled:
			out = append(out, check{Name: "hook", Status: checkSkipped, Detail: h.Name() + ": disabled ([hooks.state] enabled = false)"})
		case h.Trust == hooks.Trusted:
			trusted++
		default:
			out = append(out, check{Name: "hook", Status: checkWarn, Detail: h.Name() + ": " + string(h.Trust) + ", so it does not run",
				Fix: "review it, then `agent hooks trust " + h.Key + "` (or /hooks in the chat)"})
		}
	}
	if len(set.All) > 0 || len(set.Warnings) == 0 {
		out = append(out, check{Name: "hooks", Status: checkOK, Detail: fmt.Sprintf("%d hooks, %d trusted", len(set.All), trusted)})
	}
	return out
}

// companionFix is how a missing companion program gets installed.
const companionFix = "`make install` puts it beside agent; or `go install ./cmd/...`"

// companionChecks says where each companion program was found. A missing
// one fails only when the config needs it (agent-otel under an [otel]
// exporter); agent-highlight missing is a warning, the chat's code blocks
// then plain; agent-man missing is said, as only agent man needs it.
func companionChecks(self string, cfg config.Config) []check {
	var out []check
	for _, p := range []struct{ name, what, missing, status string }{
		{companion.Highlight, "the chat's code colours", ": code blocks in the chat are drawn without colour", checkWarn},
		{companion.Man, "agent man's page writer", "; only `agent man` needs it", checkSkipped},
		{companion.Otel, "the [otel] exporter", "; only [otel] telemetry needs it, and no exporter is set", checkSkipped},
	} {
		if p.name == companion.Otel && cfg.Otel.On() {
			p.missing, p.status = ": [otel] sets an exporter, and no telemetry is exported", checkFailed
		}
		path, err := companion.Find(self, p.name)
		if err != nil {
			out = append(out, check{Name: p.name, Status: p.status, Detail: err.Error() + p.missing, Fix: companionFix})
			continue
		}
		out = append(out, check{Name: p.name, Status: checkOK, Detail: path + " (" + p.what + ")"})
	}
	return out
}

// fallbackChecks checks that each fallback entry has its credentials, and
// says which are in a cooldown another run gave them.
func fallbackChecks(env setup.Env, cfg config.Config, home string) []check {
	var out []check
	health := failover.NewHealth(home, nil)
	for _, fb := range cfg.Fallback {
		c := check{Name: "fallback " + fb.Provider + "/" + fb.Model, Status: checkOK}
		p := cfg.Providers[fb.Provider]
		hc, err := modelclient.NewHTTPClient(setup.CAFile(cfg, env.Getenv))
		if err == nil {
			_, _, err = setup.ResolveCredentials(env, cfg, &p, home, hc, slog.New(slog.DiscardHandler), nil)
		}
		switch {
		case p.Demo:
			c.Status, c.Detail, c.Fix = checkFailed, "the demo provider cannot be a fallback", "remove it from fallback"
		case err != nil:
			c.Status, c.Detail, c.Fix = checkFailed, "no credentials: "+err.Error()+"; turns will skip it", credentialFix(p)
		default:
			c.Detail = "credentials found"
			if until := health.DownUntil(fb.Provider); time.Now().Before(until) {
				c.Detail += "; skipped until " + until.Local().Format("15:04:05") + " (it failed recently)"
			}
		}
		out = append(out, c)
	}
	return out
}

// homeCheck checks that AGENT_HOME (config, credentials, sessions) is the
// user's alone.
func homeCheck(home string) check {
	c := check{Name: "agent home"}
	st, err := os.Stat(home)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Status, c.Detail = checkOK, home+" does not exist yet; it is created (0700) on first use"
		return c
	case err != nil:
		c.Status, c.Detail, c.Fix = checkFailed, err.Error(), "make "+home+" a directory you own"
		return c
	case !st.IsDir():
		c.Status, c.Detail, c.Fix = checkFailed, home+" is not a directory", "move it away or set AGENT_HOME"
		return c
	}
	if uid, ok := fileOwner(st); ok && uid != os.Geteuid() {
		c.Status, c.Detail, c.Fix = checkFailed, fmt.Sprintf("%s belongs to uid %d, not to you (uid %d)", home, uid, os.Geteuid()),
			"chown it to yourself, or set AGENT_HOME to a directory of yours"
		return c
	}
	if st.Mode().Perm()&0o022 != 0 {
		c.Status, c.Detail = checkFailed, fmt.Sprintf("%s is writable by others (%04o): they could change your config and the MCP servers agent starts", home, st.Mode().Perm())
		c.Fix = "chmod 700 " + home
		return c
	}
	authFile := filepath.Join(home, "auth.json")
	if ast, err := os.Stat(authFile); err == nil && ast.Mode().Perm()&0o077 != 0 {
		c.Status, c.Detail = checkFailed, fmt.Sprintf("%s is readable by others (%04o)", authFile, ast.Mode().Perm())
		c.Fix = "chmod 600 " + authFile
		return c
	}
	c.Status, c.Detail = checkOK, fmt.Sprintf("%s (%04o, yours)", home, st.Mode().Perm())
	return c
}

// networkChecks finds the credential and asks the provider whether it is
// accepted (GET /models, which also shows HTTPS works through the proxy
// and CA), then opens a WebSocket when the provider speaks it.
func networkChecks(ctx context.Context, env setup.Env, cfg config.Config, p provider.Info, home string, offline bool) []check {
	if p.Demo {
		return []check{{Name: "credential", Status: checkSkipped, Detail: "the demo provider needs none"},
			{Name: "https", Status: checkSkipped, Detail: "the demo provider is local"}}
	}
	hc, err := modelclient.NewHTTPClient(setup.CAFile(cfg, env.Getenv))
	if err != nil {
		return []check{{Name: "ca certificate", Status: checkFailed, Detail: err.Error(), Fix: "point ca_certificate at a PEM file"}}
	}
	var out []check
	creds, src, err := setup.ResolveCredentials(env, cfg, &p, home, hc, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		return append(out, check{Name: "credential", Status: checkFailed, Detail: err.Error(),
			Fix: credentialFix(p) + `; meanwhile agent exec -c model_provider=demo "..." works offline`})
	}
	p.BaseURL = p.APIRoot()
	h := http.Header{}
	if err := creds.Apply(ctx, h); err != nil {
		return append(out, check{Name: "credential", Status: checkFailed, Detail: src + ": " + err.Error(), Fix: credentialFix(p)})
	}
	shown := maskAuth(h.Get("Authorization"))
	if p.WireAPI == provider.WireAPIAnthropic {
		// The Messages API reads the key from x-api-key, with its version.
		h = modelclient.AnthropicHeader(h)
		if k := h.Get("X-Api-Key"); k != "" {
			shown = "x-api-key " + auth.Mask(k)
		}
	}
	cred := check{Name: "credential", Detail: src + " (" + shown + ")"}
	if offline {
		cred.Status, cred.Detail = checkSkipped, cred.Detail+"; not checked (--offline)"
		return append(out, cred,
			check{Name: "https", Status: checkSkipped, Detail: "--offline"},
			check{Name: "websocket", Status: checkSkipped, Detail: "--offline"})
	}
	route := proxyRoute(p.BaseURL)
	models := strings.TrimSuffix(p.BaseURL, "/") + "/models"
	rctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, models, nil)
	if err != nil {
		return append(out, cred, check{Name: "https", Status: checkFailed, Detail: err.Error(), Fix: "correct base_url"})
	}
	for k, v := range h {
		req.Header[k] = v
	}
	for k, v := range p.HTTPHeaders {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		cred.Status, cred.Detail = checkSkipped, cred.Detail+"; not checked (the provider is unreachable)"
		return append(out, cred, reachFailure("https", models, route, err, cfg.CACertificate),
			check{Name: "websocket", Status: checkSkipped, Detail: "the provider is unreachable"})
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	out = append(out, check{Name: "https", Status: checkOK,
		Detail: fmt.Sprintf("GET %s answered %s in %s, %s", models, resp.Status, time.Since(start).Round(time.Millisecond), route)})
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		cred.Status, cred.Detail = checkFailed, cred.Detail+": rejected by the provider ("+resp.Status+")"
		cred.Fix = credentialFix(p)
	case resp.StatusCode/100 == 2:
		cred.Status, cred.Detail = checkOK, cred.Detail+": accepted"
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		cred = probeCredential(rctx, hc, p, req.Header, cred, resp.Status)
	default:
		cred.Status, cred.Detail = checkWarn, cred.Detail+": not confirmed (GET /models answered "+resp.Status+")"
	}
	// The credential's line comes before the reachability it was checked over.
	out = append([]check{cred}, out...)
	return append(out, wsCheck(ctx, p, hc, h, route, cfg.CACertificate))
}

// probeCredential confirms a credential where GET /models is not served
// (it answered models): the wire's sampling endpoint (/responses,
// /chat/completions) must refuse an invalid request as invalid (400), not
// as unauthenticated (401, 403), without running a model
// (modelclient.ProbeWire).
func probeCredential(ctx context.Context, hc *http.Client, p provider.Info, h http.Header, cred check, models string) check {
	pr, err := modelclient.ProbeWire(ctx, hc, p.WireAPI, p.BaseURL, h)
	switch {
	case err != nil:
		cred.Status, cred.Detail = checkWarn, fmt.Sprintf("%s: not confirmed (GET /models answered %s; POST %s got no answer: %v)", cred.Detail, models, pr.URL, err)
	case pr.Accepted:
		cred.Status, cred.Detail = checkOK, fmt.Sprintf("%s: accepted (GET /models answered %s; an invalid POST %s was refused as invalid, %s)", cred.Detail, models, pr.URL, pr.Status)
	case pr.Rejected:
		cred.Status, cred.Detail = checkFailed, fmt.Sprintf("%s: rejected by the provider (POST %s answered %s)", cred.Detail, pr.URL, pr.Status)
		cred.Fix = credentialFix(p)
	default:
		cred.Status, cred.Detail = checkWarn, fmt.Sprintf("%s: not confirmed (GET /models answered %s; an invalid POST %s answered %s, not 400)", cred.Detail, models, pr.URL, pr.Status)
	}
	return cred
}

// wsCheck opens (and closes) a WebSocket to the Responses endpoint, when
// the provider speaks it and the transport may use it.
func wsCheck(ctx context.Context, p provider.Info, hc *http.Client, h http.Header, route, ca string) check {
	c := check{Name: "websocket"}
	switch {
	case p.WireAPI == provider.WireAPIChat || p.WireAPI == provider.WireAPIAnthropic:
		c.Status, c.Detail = checkSkipped, fmt.Sprintf("wire_api = %q has no WebSocket form", p.WireAPI)
		return c
	case !p.SupportsWebSockets:
		c.Status, c.Detail = checkSkipped, "the provider does not speak Responses over WebSocket"
		return c
	case p.Transport == provider.TransportHTTPS:
		c.Status, c.Detail = checkSkipped, "transport = \"https\""
		return c
	}
	u := ws.URL(strings.TrimSuffix(p.BaseURL, "/") + "/responses")
	dctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	conn, resp, err := websocket.Dial(dctx, u, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: h})
	if err != nil {
		f := reachFailure("websocket", u, route, err, ca)
		if resp != nil {
			f.Detail = fmt.Sprintf("%s answered %s to the WebSocket handshake, %s", u, resp.Status, route)
		}
		if p.Transport == provider.TransportAuto {
			// auto falls back to HTTPS: slower, but it works.
			f.Status = checkWarn
			f.Fix = "turns fall back to HTTPS; if a proxy blocks WebSockets, set transport = \"https\" to skip the attempt"
		} else {
			f.Fix = "transport = \"websocket\" needs it: allow WebSockets through the proxy, or set transport = \"auto\""
		}
		return f
	}
	_ = conn.Close(websocket.StatusNormalClosure, "agent doctor")
	c.Status, c.Detail = checkOK, "handshake with "+u+" succeeded, "+route
	return c
}

// reachFailure explains why url could not be reached.
func reachFailure(name, u, route string, err error, ca string) check {
	c := check{Name: name, Status: checkFailed, Detail: fmt.Sprintf("%s: %v (%s)", u, err, route)}
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	var dns *net.DNSError
	switch {
	case errors.As(err, &ua):
		c.Fix = "the server's certificate is signed by an authority agent does not trust: set ca_certificate to your proxy's or company's root CA (PEM)"
		if ca != "" {
			c.Fix = "ca_certificate = " + ca + " does not sign the server's certificate: point it at the right root CA (PEM)"
		}
	case errors.As(err, &hn), errors.As(err, &ci):
		c.Fix = "the server's certificate does not fit: check base_url and the proxy"
	case errors.As(err, &rh):
		c.Fix = "the server does not speak TLS: check the scheme of base_url (http:// or https://)"
	case errors.As(err, &dns):
		c.Fix = "the host name does not resolve: check base_url, DNS, or set HTTPS_PROXY"
	case strings.Contains(err.Error(), "proxyconnect"):
		c.Fix = "the proxy refused or is unreachable: check HTTPS_PROXY / HTTP_PROXY"
	default:
		c.Fix = "check the network, base_url, and HTTPS_PROXY / NO_PROXY"
	}
	return c
}

// proxyRoute says how requests to u travel: direct, or through which
// proxy (the environment's HTTPS_PROXY / HTTP_PROXY / NO_PROXY).
func proxyRoute(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "direct"
	}
	proxy, err := http.ProxyFromEnvironment(&http.Request{URL: pu})
	if err != nil || proxy == nil {
		return "direct (no proxy)"
	}
	proxy.User = nil // never print proxy credentials
	return "through proxy " + proxy.String()
}

// credentialFix says where a credential can come from.
func credentialFix(p provider.Info) string {
	switch {
	case p.EnvKey != "":
		return "set " + p.EnvKey + " to a valid key, or run `agent login`"
	case p.RequiresOpenAIAuth:
		return "run `agent login`, or set AGENT_API_KEY"
	}
	return "set AGENT_API_KEY, or the provider's env_key"
}

// maskAuth shows an Authorization value with the secret masked as
// everywhere a key is shown ([auth.Mask]), after its scheme.
func maskAuth(v string) string {
	if v == "" {
		return "no Authorization header"
	}
	if scheme, secret, ok := strings.Cut(v, " "); ok {
		return scheme + " " + auth.Mask(secret)
	}
	return auth.Mask(v)
}

// sandboxChecks describe what this kernel offers the sandbox and what each
// restricted mode then does; the configured mode fails when its commands
// would be refused.
func sandboxChecks(ctx context.Context, probes sandbox.Probes, cfg config.Config) []check {
	k := sandbox.Probe(ctx, probes)
	var parts []string
	kc := check{Name: "sandbox kernel", Status: checkOK}
	if k.Landlock != nil {
		parts = append(parts, "Landlock: "+k.Landlock.Error())
		kc.Status = checkWarn
	} else {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", k.LandlockABI))
	}
	for _, x := range []struct {
		name string
		err  error
	}{{"seccomp", k.Seccomp}, {"mount namespace", k.MountNS}, {"network namespace", k.NetNS}} {
		if x.err != nil {
			parts = append(parts, x.name+": "+x.err.Error())
			kc.Status = checkWarn
		} else {
			parts = append(parts, x.name+" ok")
		}
	}
	kc.Detail = strings.Join(parts, "; ")
	out := []check{kc}
	mode := cfg.SandboxMode
	if mode == "" {
		mode = string(sandbox.ReadOnly)
	}
	best := cfg.SandboxFallback == "best-effort"
	for _, m := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		ok, what := k.Enforces(m, best)
		c := check{Name: "sandbox " + string(m), Status: checkOK, Detail: what}
		configured := string(m) == mode
		if configured {
			c.Detail += " (the configured sandbox_mode)"
		}
		switch {
		case !ok && configured:
			c.Status = checkFailed
			c.Fix = "run on a kernel with Landlock (5.13+) and user namespaces, or set sandbox_fallback = \"best-effort\""
		case !ok:
			c.Status = checkWarn
		case strings.HasPrefix(what, "best effort"):
			c.Status = checkWarn
		}
		out = append(out, c)
	}
	return out
}

// mcpChecks starts each enabled MCP server the way a session does and
// reports whether it came up, with its tools.
func mcpChecks(ctx context.Context, o Options, cfg config.Config, offline bool) []check {
	servers := setup.MCPServerConfigs(cfg)
	if len(servers) == 0 {
		return []check{{Name: "mcp", Status: checkOK, Detail: "no MCP servers configured"}}
	}
	var out []check
	var run []mcp.ServerConfig
	for _, s := range servers {
		if offline && s.URL != "" {
			out = append(out, check{Name: "mcp " + s.Name, Status: checkSkipped, Detail: s.URL + " (--offline)"})
			continue
		}
		run = append(run, s)
	}
	if len(run) == 0 {
		return out
	}
	cwd, _ := os.Getwd()
	m := mcp.New(mcp.Options{Servers: run, Policy: cfg.ApprovalPolicy, Cwd: cwd, Getenv: o.Env.Getenv,
		Logger: slog.New(slog.DiscardHandler), Version: o.Version})
	defer m.Close()
	m.Start(ctx)
	select {
	case <-m.Started():
	case <-ctx.Done():
	}
	for _, st := range m.Servers() {
		c := check{Name: "mcp " + st.Name}
		switch st.State {
		case mcp.Ready:
			c.Status, c.Detail = checkOK, fmt.Sprintf("ready, %d tools: %s", len(st.Tools), strings.Join(st.Tools, ", "))
		default:
			c.Status, c.Detail = checkFailed, st.State.String()
			if st.Err != nil {
				c.Detail += ": " + st.Err.Error()
			}
			c.Fix = "run the server's command by hand to see why (`agent mcp get " + st.Name + "`), or set enabled = false"
		}
		out = append(out, c)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none: defaults)"
	}
	return s
}
