package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/companion"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/tools/sandbox"
)

// goodKernel simulates a kernel with everything the sandbox uses.
var goodKernel = sandbox.Probes{
	Landlock:   func() (int, error) { return 5, nil },
	Seccomp:    func() error { return nil },
	Namespaces: func(context.Context, bool, bool) error { return nil },
}

// fakeKey is the provider key of the tests; the report must never show it.
const fakeKey = "test-key-0000-LEAKCHECK-1234"

// doctorRun runs agent doctor --json on a home holding cfg and returns the
// exit code and the report.
func doctorRun(t *testing.T, cfg string, env map[string]string, probes sandbox.Probes, args ...string) (int, doctorReport, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"AGENT_HOME": home, "FAKE_KEY": fakeKey}
	for k, v := range env {
		vars[k] = v
	}
	var stdout, stderr bytes.Buffer
	err := Run(t.Context(), Options{
		Env:    setup.Env{Getenv: func(k string) string { return vars[k] }, Stderr: &stderr},
		Stdout: &stdout, Probes: probes, Version: "test", JSON: true, Offline: slices.Contains(args, "--offline"),
		Self: installed(t, companion.Highlight, companion.Man, companion.Otel),
	})
	code := 0
	if err != nil {
		var ee *exitcode.Error
		if !errors.As(err, &ee) {
			t.Fatalf("doctor: %v", err)
		}
		code = ee.Code
	}
	var rep doctorReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json printed no report (%v): %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	return code, rep, stdout.String()
}

// installed returns the path of an agent executable in a directory of its
// own, with the programs named beside it.
func installed(t *testing.T, programs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range programs {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "agent")
}

// mcpServerBinary builds the stdio test MCP server once per test process,
// into a directory TestMain removes.
var mcpServerBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "doctor-mcp-")
	if err != nil {
		return "", err
	}
	binDir.Store(&dir)
	return mcptest.Build(dir)
})

// binDir is where mcpServerBinary built, if it did.
var binDir atomic.Pointer[string]

// stdioMCPServer is the path of the stdio MCP test server.
func stdioMCPServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the stdio MCP test server; skipped in -short mode")
	}
	bin, err := mcpServerBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// quoteTOML quotes s as a TOML basic string.
func quoteTOML(s string) string {
	b, _ := json.Marshal(s) // a JSON string of a path is a TOML basic string
	return string(b)
}

// TestMain removes the MCP server it built and fails the package if any
// goroutine outlives its tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if d := binDir.Load(); d != nil {
		os.RemoveAll(*d)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// checkOf returns the named check of rep.
func checkOf(t *testing.T, rep doctorReport, name string) check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep.Checks)
	return check{}
}

// doctorProvider is a config for srv's URL, offering WebSocket too.
func doctorProvider(url, extra string) string {
	return "model = \"test-model\"\nmodel_provider = \"fake\"\n" + extra + "\n[model_providers.fake]\nbase_url = \"" + url +
		"\"\nenv_key = \"FAKE_KEY\"\nsupports_websockets = true\n"
}

func TestDoctorAllOK(t *testing.T) {
	srv := rt.New(rt.Script{}, rt.Options{APIKey: fakeKey, OnUnexpected: func(m string) { t.Errorf("%s", m) }})
	srv.Start()
	t.Cleanup(srv.Close)
	mcpBin := stdioMCPServer(t)
	code, rep, out := doctorRun(t, doctorProvider(srv.URL, "")+"\n[mcp_servers.test]\ncommand = "+quoteTOML(mcpBin)+"\n", nil, goodKernel)
	if code != 0 || !rep.OK {
		t.Fatalf("exit %d, ok %v:\n%s", code, rep.OK, out)
	}
	for _, c := range rep.Checks {
		if c.Status != checkOK {
			t.Errorf("check %q is %s: %s", c.Name, c.Status, c.Detail)
		}
	}
	if c := checkOf(t, rep, "credential"); !strings.Contains(c.Detail, "environment variable FAKE_KEY") ||
		!strings.Contains(c.Detail, "accepted") || strings.Contains(out, fakeKey) {
		t.Errorf("credential check %q (the key must be masked)", c.Detail)
	}
	if c := checkOf(t, rep, "credential"); !strings.Contains(c.Detail, "(Bearer "+auth.Mask(fakeKey)+")") {
		t.Errorf("credential check %q: want the key masked as agent login status shows it, %q", c.Detail, auth.Mask(fakeKey))
	}
	if c := checkOf(t, rep, "mcp test"); !strings.Contains(c.Detail, "mcp__test__") {
		t.Errorf("mcp check %q lists no tools", c.Detail)
	}
	if m := srv.ModelsRequests(); len(m) != 1 || m[0].Header.Get("Authorization") != "Bearer "+fakeKey {
		t.Errorf("GET /models requests: %+v", m)
	}
	if h := srv.Handshakes(); len(h) != 1 {
		t.Errorf("%d WebSocket handshakes, want 1", len(h))
	}
}

func TestDoctorBadKey(t *testing.T) {
	srv := rt.New(rt.Script{}, rt.Options{APIKey: "sk-test-canary-right-0000"})
	srv.Start()
	t.Cleanup(srv.Close)
	code, rep, out := doctorRun(t, doctorProvider(srv.URL, ""), nil, goodKernel)
	c := checkOf(t, rep, "credential")
	if code != exitcode.Failed || rep.OK || c.Status != checkFailed || !strings.Contains(c.Detail, "rejected by the provider (401") ||
		!strings.Contains(c.Fix, "FAKE_KEY") {
		t.Errorf("exit %d, credential %+v:\n%s", code, c, out)
	}
	if h := checkOf(t, rep, "https"); h.Status != checkOK {
		t.Errorf("a 401 still shows the provider reachable; https = %+v", h)
	}
}

func TestDoctorUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	code, rep, out := doctorRun(t, doctorProvider("http://"+addr+"/v1", ""), nil, goodKernel)
	h := checkOf(t, rep, "https")
	if code != exitcode.Failed || h.Status != checkFailed || !strings.Contains(h.Detail, "connection refused") || h.Fix == "" {
		t.Errorf("exit %d, https %+v:\n%s", code, h, out)
	}
	if c := checkOf(t, rep, "credential"); c.Status != checkSkipped {
		t.Errorf("credential %+v, want skipped (unreachable)", c)
	}
}

func TestDoctorFailingMCPServer(t *testing.T) {
	srv := rt.New(rt.Script{}, rt.Options{})
	srv.Start()
	t.Cleanup(srv.Close)
	mcpBin := stdioMCPServer(t)
	tables := "\n[mcp_servers.broken]\ncommand = " + quoteTOML(mcpBin) + "\nargs = [\"-fail\", \"cannot read my settings\"]\n"
	code, rep, out := doctorRun(t, doctorProvider(srv.URL, "")+tables, nil, goodKernel, "--offline")
	c := checkOf(t, rep, "mcp broken")
	if code != exitcode.Failed || c.Status != checkFailed || !strings.Contains(c.Detail, "cannot read my settings") || c.Fix == "" {
		t.Errorf("exit %d, mcp %+v:\n%s", code, c, out)
	}
	if n := len(srv.ModelsRequests()); n != 0 {
		t.Errorf("--offline made %d requests", n)
	}
}

// TestDoctorNoLandlock: on a kernel without Landlock (simulated), the
// configured restricted mode fails with the fix, and passes as a warning
// under sandbox_fallback = "best-effort".
func TestDoctorNoLandlock(t *testing.T) {
	noLandlock := goodKernel
	noLandlock.Landlock = func() (int, error) {
		return 0, &sandbox.UnavailableError{What: "Landlock", Err: errors.New("the kernel is built without it")}
	}
	code, rep, out := doctorRun(t, doctorProvider("http://127.0.0.1:1/v1", "sandbox_mode = \"workspace-write\"\n"), nil, noLandlock, "--offline")
	c := checkOf(t, rep, "sandbox workspace-write")
	if code != exitcode.Failed || c.Status != checkFailed || !strings.Contains(c.Detail, "refuses commands: no Landlock") ||
		!strings.Contains(c.Fix, "best-effort") {
		t.Errorf("exit %d, sandbox %+v:\n%s", code, c, out)
	}
	if k := checkOf(t, rep, "sandbox kernel"); k.Status != checkWarn || !strings.Contains(k.Detail, "built without it") {
		t.Errorf("kernel check %+v", k)
	}
	code, rep, out = doctorRun(t, doctorProvider("http://127.0.0.1:1/v1", "sandbox_mode = \"workspace-write\"\nsandbox_fallback = \"best-effort\"\n"), nil, noLandlock, "--offline")
	c = checkOf(t, rep, "sandbox workspace-write")
	if code != 0 || c.Status != checkWarn || !strings.Contains(c.Detail, "best effort: runs commands without Landlock") {
		t.Errorf("best effort: exit %d, sandbox %+v:\n%s", code, c, out)
	}
}

// TestDoctorHomePermissions: a home others can write, or an auth.json
// others can read, fails with the chmod that fixes it.
func TestDoctorHomePermissions(t *testing.T) {
	home := t.TempDir()
	if c := homeCheck(home); c.Status != checkOK {
		t.Errorf("a fresh home: %+v", c)
	}
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	if c := homeCheck(home); c.Status != checkFailed || c.Fix != "chmod 700 "+home {
		t.Errorf("a home writable by others: %+v", c)
	}
	os.Chmod(home, 0o700)
	auth := filepath.Join(home, "auth.json")
	if err := os.WriteFile(auth, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := homeCheck(home); c.Status != checkFailed || c.Fix != "chmod 600 "+auth {
		t.Errorf("auth.json readable by others: %+v", c)
	}
	if c := homeCheck(filepath.Join(home, "missing")); c.Status != checkOK || !strings.Contains(c.Detail, "created (0700) on first use") {
		t.Errorf("a home not yet made: %+v", c)
	}
}

// TestDoctorFallbackCredentials: a fallback entry whose key is missing
// fails its check, naming the variable; one with a key is ok.
func TestDoctorFallbackCredentials(t *testing.T) {
	cfg := doctorProvider("http://127.0.0.1:9/v1", `fallback = [{ provider = "backup", model = "m1" }, { provider = "spare", model = "m2" }]`) +
		"[model_providers.backup]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"BACKUP_KEY\"\n" +
		"[model_providers.spare]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"FAKE_KEY\"\n"
	code, rep, out := doctorRun(t, cfg, nil, goodKernel, "--offline")
	if code == 0 || rep.OK {
		t.Errorf("exit %d with a fallback lacking its key:\n%s", code, out)
	}
	if c := checkOf(t, rep, "fallback backup/m1"); c.Status != checkFailed || !strings.Contains(c.Detail+c.Fix, "BACKUP_KEY") {
		t.Errorf("fallback backup/m1 = %+v", c)
	}
	if c := checkOf(t, rep, "fallback spare/m2"); c.Status != checkOK {
		t.Errorf("fallback spare/m2 = %+v", c)
	}
}

// TestDoctorSanitizesOnTerminal: a check's detail carries text from
// outside (an MCP server's tool names or error); on a terminal it cannot
// drive it (title, clear screen), while a pipe gets it as it came.
func TestDoctorSanitizesOnTerminal(t *testing.T) {
	rep := doctorReport{Checks: []check{{Name: "mcp evil", Status: checkFailed,
		Detail: "failed: \x1b]0;pwned\x07bad\x1b[2J tool", Fix: "run it by hand"}}}
	var tty, pipe bytes.Buffer
	printDoctor(&tty, rep, true)
	printDoctor(&pipe, rep, false)
	if got := tty.String(); strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, "failed: bad tool") {
		t.Errorf("terminal report %q: want the text without its escape sequences", got)
	}
	if !strings.Contains(pipe.String(), rep.Checks[0].Detail) {
		t.Errorf("piped report %q: want the detail as it came", pipe.String())
	}
}

// TestDoctorConfigKeyWarnings: a Codex key agent ignores is a warning line
// of its own, naming file, line and key, and does not fail the run.
func TestDoctorConfigKeyWarnings(t *testing.T) {
	code, rep, out := doctorRun(t, "file_opener = \"vscode\"\n"+doctorProvider("http://127.0.0.1:9/v1", ""), nil, goodKernel, "--offline")
	c := checkOf(t, rep, "config key")
	if c.Status != checkWarn || !strings.Contains(c.Detail, "config.toml:1") || !strings.Contains(c.Detail, "file_opener") {
		t.Errorf("config key check = %+v\n%s", c, out)
	}
	if code != 0 || !rep.OK {
		t.Errorf("exit %d, ok %v: an ignored key must not fail the doctor\n%s", code, rep.OK, out)
	}
}

// TestDoctorFreshInstall: on a fresh HOME with no credential, doctor says
// which home it found and that there is no config, and that the demo
// provider works offline; with only ~/.codex it names Codex's home and its
// config.toml.
func TestDoctorFreshInstall(t *testing.T) {
	user := t.TempDir()
	doctor := func() (doctorReport, error) {
		var stdout, stderr bytes.Buffer
		vars := map[string]string{"HOME": user}
		err := Run(t.Context(), Options{
			Env:    setup.Env{Getenv: func(k string) string { return vars[k] }, Stderr: &stderr},
			Stdout: &stdout, Probes: goodKernel, Version: "test", JSON: true, Offline: true,
		})
		var rep doctorReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("no report (%v): %s\n%s", err, stdout.String(), stderr.String())
		}
		return rep, err
	}
	rep, err := doctor()
	if c := checkOf(t, rep, "home"); !strings.Contains(c.Detail, filepath.Join(user, ".agent")+" (the default") {
		t.Errorf("home: %+v", c)
	}
	if c := checkOf(t, rep, "config"); !strings.Contains(c.Detail, "no config file") {
		t.Errorf("config: %+v", c)
	}
	if c := checkOf(t, rep, "credential"); err == nil || c.Status != checkFailed || !strings.Contains(c.Fix, `agent exec -c model_provider=demo "..."`) {
		t.Errorf("err %v, credential: %+v; want a failure whose fix names the offline demo", err, c)
	}
	codex := filepath.Join(user, ".codex")
	os.Mkdir(codex, 0o700)
	os.WriteFile(filepath.Join(codex, "config.toml"), []byte("model = \"gpt-5.4\"\n"), 0o600)
	rep, _ = doctor()
	if c := checkOf(t, rep, "home"); !strings.Contains(c.Detail, "using Codex's home "+codex) {
		t.Errorf("home with ~/.codex: %+v", c)
	}
	if c := checkOf(t, rep, "config"); !strings.Contains(c.Detail, filepath.Join(codex, "config.toml")) {
		t.Errorf("config with ~/.codex: %+v", c)
	}
}

// TestDoctorProbesWithoutModels: a provider that does not serve GET
// /models (404, 405) has its credential checked by an invalid POST
// /responses: a 400 is accepted, a 401 fails, a 500 is named, unconfirmed.
func TestDoctorProbesWithoutModels(t *testing.T) {
	for _, c := range []struct {
		models, answer int
		code           int
		status, detail string
	}{
		{404, 400, 0, checkOK, "accepted (GET /models answered 404 Not Found; an invalid POST "},
		{405, 400, 0, checkOK, "refused as invalid, 400 Bad Request)"},
		{404, 401, exitcode.Failed, checkFailed, "rejected by the provider (POST "},
		{405, 500, 0, checkWarn, "answered 500 Internal Server Error, not 400"},
	} {
		srv := rt.New(rt.Script{rt.Status(c.answer)}, rt.Options{ModelsStatus: c.models, OnUnexpected: func(m string) { t.Errorf("%s", m) }})
		srv.Start()
		code, rep, out := doctorRun(t, doctorProvider(srv.URL, ""), nil, goodKernel)
		srv.Close()
		cred := checkOf(t, rep, "credential")
		if code != c.code || cred.Status != c.status || !strings.Contains(cred.Detail, c.detail) || strings.Contains(out, fakeKey) {
			t.Errorf("/models %d, /responses %d: exit %d, credential %+v; want exit %d, %s, %q", c.models, c.answer, code, cred, c.code, c.status, c.detail)
		}
		if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+fakeKey {
			t.Errorf("/models %d: %d POSTs; want the one probe, with the key", c.models, len(reqs))
		}
	}
}

// TestDoctorCompanions: each companion program is a line saying where it
// was found; a missing one says so with the fix, and fails the doctor only
// when the config needs it (agent-otel under an [otel] exporter), a
// missing agent-highlight a warning, a missing agent-man said.
func TestDoctorCompanions(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // nothing on PATH
	const otel = "[otel]\nexporter = { otlp-http = { endpoint = \"http://127.0.0.1:1/v1/logs\", protocol = \"binary\" } }\n"
	run := func(self, cfg string) (doctorReport, string, error) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model_provider = \"demo\"\n"+cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout, text bytes.Buffer
		o := Options{Env: setup.Env{Getenv: func(k string) string { return map[string]string{"AGENT_HOME": home}[k] }, Stderr: io.Discard},
			Stdout: &stdout, Probes: goodKernel, Version: "test", JSON: true, Offline: true, Self: self}
		err := Run(t.Context(), o)
		var rep doctorReport
		if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil {
			t.Fatalf("no report (%v): %s", jerr, stdout.String())
		}
		printDoctor(&text, rep, false)
		return rep, text.String(), err
	}
	all := installed(t, companion.Highlight, companion.Man, companion.Otel)
	rep, out, err := run(all, otel)
	for _, name := range []string{companion.Highlight, companion.Man, companion.Otel} {
		if c := checkOf(t, rep, name); c.Status != checkOK || !strings.HasPrefix(c.Detail, filepath.Join(filepath.Dir(all), name)+" (") {
			t.Errorf("installed %s: %+v", name, c)
		}
	}
	if err != nil {
		t.Errorf("all installed: %v\n%s", err, out)
	}
	alone := installed(t)
	rep, out, err = run(alone, "")
	for _, want := range []check{
		{companion.Highlight, checkWarn, ": code blocks in the chat are drawn without colour", ""},
		{companion.Man, checkSkipped, "; only `agent man` needs it", ""},
		{companion.Otel, checkSkipped, "; only [otel] telemetry needs it, and no exporter is set", ""},
	} {
		c := checkOf(t, rep, want.Name)
		if c.Status != want.Status || c.Detail != want.Name+" was not found beside "+alone+" or on PATH (make install puts it beside agent)"+want.Detail ||
			c.Fix != "`make install` puts it beside agent; or `go install ./cmd/...`" {
			t.Errorf("none installed: %+v; want %s, %q and the fix", c, want.Status, want.Detail)
		}
		mark := map[string]string{checkWarn: "warn", checkSkipped: "skip"}[want.Status]
		if !regexp.MustCompile(`(?m)^` + mark + `  ` + want.Name + ` +` + regexp.QuoteMeta(c.Detail) + `\n +fix: ` + regexp.QuoteMeta(c.Fix) + `\n`).MatchString(out) {
			t.Errorf("none installed, the report lacks %s's line and its fix:\n%s", want.Name, out)
		}
	}
	if err != nil || !rep.OK {
		t.Errorf("none installed, no telemetry: %v; want exit 0 (warnings only)\n%s", err, out)
	}
	rep, out, err = run(alone, otel)
	var ee *exitcode.Error
	if c := checkOf(t, rep, companion.Otel); c.Status != checkFailed || !strings.HasSuffix(c.Detail, ": [otel] sets an exporter, and no telemetry is exported") ||
		!errors.As(err, &ee) || ee.Code != exitcode.Failed || !strings.Contains(out, "1 check failed.") {
		t.Errorf("[otel] exporter without agent-otel: %v, %+v; want a failure\n%s", err, c, out)
	}
}

// TestDoctorProbesChatWire: for a provider with wire_api = "chat", the
// credential probe is an invalid POST /chat/completions (a Chat server
// has no /responses), and no WebSocket is opened: the wire has none.
func TestDoctorProbesChatWire(t *testing.T) {
	srv := rt.New(rt.Script{rt.Status(400)}, rt.Options{ModelsStatus: 404, OnUnexpected: func(m string) { t.Errorf("%s", m) }})
	srv.Start()
	defer srv.Close()
	code, rep, out := doctorRun(t, doctorProvider(srv.URL, "")+"wire_api = \"chat\"\n", nil, goodKernel)
	cred := checkOf(t, rep, "credential")
	if code != 0 || cred.Status != checkOK || !strings.Contains(cred.Detail, "/chat/completions was refused as invalid") || strings.Contains(out, fakeKey) {
		t.Errorf("exit %d, credential %+v; want the chat endpoint's probe accepted", code, cred)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/chat/completions") || reqs[0].JSON["messages"] == nil {
		t.Errorf("probes %+v; want one invalid POST /chat/completions", reqs)
	}
	if ws := checkOf(t, rep, "websocket"); ws.Status != checkSkipped || !strings.Contains(ws.Detail, "chat") {
		t.Errorf("websocket check %+v; want skipped for the chat wire", ws)
	}
	if hs := srv.Handshakes(); len(hs) != 0 {
		t.Errorf("%d WebSocket handshakes on the chat wire", len(hs))
	}
}

// TestDoctorProbesAnthropicWire: for a provider with wire_api =
// "anthropic", the credential goes as the Messages API reads it (x-api-key
// with anthropic-version, no bearer token), masked in the report, and the
// probe is an invalid POST /messages; no WebSocket is opened.
func TestDoctorProbesAnthropicWire(t *testing.T) {
	srv := rt.New(rt.Script{rt.StatusBody(400, rt.ClaudeErrorBody("invalid_request_error", "messages: Input should be a valid list"))},
		rt.Options{ModelsStatus: 404, OnUnexpected: func(m string) { t.Errorf("%s", m) }})
	srv.Start()
	defer srv.Close()
	code, rep, out := doctorRun(t, doctorProvider(srv.URL, "")+"wire_api = \"anthropic\"\n", nil, goodKernel)
	cred := checkOf(t, rep, "credential")
	if code != 0 || cred.Status != checkOK || !strings.Contains(cred.Detail, "/messages was refused as invalid") ||
		!strings.Contains(cred.Detail, "x-api-key ") || strings.Contains(out, fakeKey) {
		t.Errorf("exit %d, credential %+v; want the Messages endpoint's probe accepted, the key masked", code, cred)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/messages") || reqs[0].JSON["messages"] == nil {
		t.Fatalf("probes %+v; want one invalid POST /messages", reqs)
	}
	if h := reqs[0].Header; h.Get("X-Api-Key") != fakeKey || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("probe headers x-api-key %q anthropic-version %q authorization %q; want the key as x-api-key alone",
			h.Get("X-Api-Key"), h.Get("Anthropic-Version"), h.Get("Authorization"))
	}
	if ws := checkOf(t, rep, "websocket"); ws.Status != checkSkipped || !strings.Contains(ws.Detail, "anthropic") {
		t.Errorf("websocket check %+v; want skipped for the Messages wire", ws)
	}
}
