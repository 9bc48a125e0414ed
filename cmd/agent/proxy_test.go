package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/proxy"
)

// agentProxy is `agent proxy` running in-process on a loopback port.
type agentProxy struct {
	url    string // base URL clients use, ending in /v1
	stderr *syncbuf.Buffer
	stop   func() int // cancels the run and returns its exit code

	mu     sync.Mutex
	sleeps []time.Duration
}

func (p *agentProxy) recordedSleeps() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sleeps)
}

// startAgentProxy runs `agent proxy --listen 127.0.0.1:0 args...` with
// AGENT_HOME=home (config.toml there, if any) and the extra environment,
// a recording Sleep (no real waits) and jitter draw 0.5, and waits until
// it listens. The run is stopped at cleanup if the test did not.
func startAgentProxy(t *testing.T, home string, environ map[string]string, args ...string) *agentProxy {
	t.Helper()
	env := map[string]string{"AGENT_HOME": home}
	for k, v := range environ {
		env[k] = v
	}
	p := &agentProxy{stderr: &syncbuf.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"proxy", "--listen", "127.0.0.1:0"}, args...), Env{
			Stdin:  strings.NewReader(""),
			Stdout: io.Discard,
			Stderr: p.stderr,
			Getenv: func(k string) string { return env[k] },
			Sleep: func(ctx context.Context, d time.Duration) error {
				p.mu.Lock()
				p.sleeps = append(p.sleeps, d)
				p.mu.Unlock()
				return ctx.Err()
			},
			Rand: func() float64 { return 0.5 },
		})
	}()
	var once sync.Once
	code := -1
	p.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Error("agent proxy did not stop 20s after its context ended")
			}
		})
		return code
	}
	t.Cleanup(func() { p.stop() })
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if m := agenttest.ProxyListening.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case c := <-done:
			done <- c
			t.Fatalf("agent proxy exited with %d before listening:\n%s", c, p.stderr)
		case <-deadline.C:
			t.Fatalf("agent proxy did not start listening:\n%s", p.stderr)
		case <-tick.C:
		}
	}
}

// TestProxyCommandAbsorbsFailuresForExec runs `agent exec` (in-process)
// against `agent proxy` in front of an upstream that fails once: exec
// sees one clean stream, prints the reply once and never retries itself.
func TestProxyCommandAbsorbsFailuresForExec(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Status(503), rt.Reply("r1", "m1", "hello through the proxy")})
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)

	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nbase_url = \"" + p.url +
		"\"\nenv_key = \"FAKE_KEY\"\n"
	r := runCLI(t, nil, runOpts{config: cfg}, "exec", "hi")
	if r.code != 0 {
		t.Fatalf("exec exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "hello through the proxy\n" {
		t.Errorf("exec stdout = %q; want the reply once", r.stdout)
	}
	if len(r.sleeps) != 0 || strings.Contains(r.stderr, "Retrying") {
		t.Errorf("exec retried itself (sleeps %v):\n%s", r.sleeps, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream saw %d requests; want 2", len(reqs))
	}
	if got := reqs[1].Header.Get("Authorization"); got != "Bearer "+fakeKey {
		t.Errorf("the client's Authorization did not pass through: %q", got)
	}
	// server_error: 200 ms, jitter ±10% at draw 0.5.
	if diff := cmp.Diff([]time.Duration{200 * ms}, p.recordedSleeps()); diff != "" {
		t.Errorf("proxy delays (-want +got):\n%s", diff)
	}
	if code := p.stop(); code != exitcode.OK {
		t.Errorf("agent proxy exit %d after its context ended; want 0", code)
	}
	log := p.stderr.String()
	for _, want := range []string{"msg=RETRY", "retry=1", "delay=200ms", "class=server_error", "msg=OK", "attempts=2",
		"stopped after 1 requests (1 retries, 1 retry successes, 0 failed, 0 clients gone)"} {
		if !strings.Contains(log, want) {
			t.Errorf("proxy stderr lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, fakeKey) || strings.Contains(log, "LEAKCHECK") {
		t.Errorf("the API key reached the proxy log:\n%s", log)
	}
}

// TestE2EExecThroughProxy is the same path with the real binary for
// `agent exec`.
func TestE2EExecThroughProxy(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Error(503, "server_error", "", "Selected model is at capacity."),
		rt.Reply("r1", "m1", "hello from behind the proxy"),
	})
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)
	home := writeConfig(t, p.url, "")
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "hi")
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\nstderr:\n%s\nproxy:\n%s", err, stderr, p.stderr)
	}
	if got := stdout.String(); got != "hello from behind the proxy\n" {
		t.Errorf("stdout = %q; want the reply once", got)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("upstream saw %d requests; want 2", n)
	}
	// overloaded: the fixed schedule's 1 s, up-only jitter at draw 0.5.
	if diff := cmp.Diff([]time.Duration{1500 * ms}, p.recordedSleeps()); diff != "" {
		t.Errorf("proxy delays (-want +got):\n%s", diff)
	}
	if code := p.stop(); code != exitcode.OK {
		t.Errorf("agent proxy exit %d; want 0", code)
	}
}

func TestProxyCommandProviderCredentials(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "ok")})
	home := writeConfig(t, srv.URL, "")
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, "http_headers = { \"X-Team\" = \"infra\" }\nquery_params = { api-version = \"7\" }\n"...)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startAgentProxy(t, home, map[string]string{"FAKE_KEY": fakeKey}, "--provider", "fake")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url+"/responses", strings.NewReader(`{"model":"m"}`))
	req.Header.Set("Authorization", "Bearer client-dummy")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get(proxy.HeaderProxy) != "1" || resp.Header.Get(proxy.HeaderAttempts) != "1" {
		t.Errorf("got %d %v", resp.StatusCode, resp.Header)
	}
	q := srv.Requests()[0]
	if q.Header.Get("Authorization") != "Bearer "+fakeKey || q.Header.Get("X-Team") != "infra" || q.Query.Get("api-version") != "7" {
		t.Errorf("upstream request: headers %v query %v", q.Header, q.Query)
	}
	p.stop()
	if strings.Contains(p.stderr.String(), fakeKey) {
		t.Errorf("the API key reached stderr:\n%s", p.stderr)
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestProxyCommandUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		args   []string
		want   string
	}{
		{"remote listen", "", []string{"--listen", "0.0.0.0:8787", "--upstream", "http://127.0.0.1:1/v1"}, "--allow-remote"},
		{"all interfaces", "", []string{"--listen", ":8787", "--upstream", "http://127.0.0.1:1/v1"}, "not a loopback address"},
		{"both targets", "", []string{"--upstream", "http://127.0.0.1:1/v1", "--provider", "openai"}, "not both"},
		{"bad upstream", "", []string{"--upstream", "127.0.0.1:1"}, "absolute http"},
		{"unknown provider", "", []string{"--provider", "nope"}, `unknown provider "nope"`},
		{"demo has no upstream", "", []string{"--provider", "demo"}, "no base_url"},
		{"bad ws mode", "", []string{"--upstream", "http://127.0.0.1:1/v1", "--ws", "sometimes"}, "websocket mode"},
		{"negative retries", "", []string{"--upstream", "http://127.0.0.1:1/v1", "--max-retries", "-1"}, "must not be negative"},
		{"zero gate", "", []string{"--upstream", "http://127.0.0.1:1/v1", "--max-concurrent-retries", "0"}, "at least 1"},
		{"bad config", "[proxy]\nwebsocket = \"x\"\n", []string{"--upstream", "http://127.0.0.1:1/v1"}, "proxy.websocket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stderr syncbuf.Buffer
			code := run(t.Context(), append([]string{"proxy"}, tt.args...), Env{
				Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr,
				Getenv: func(k string) string { return map[string]string{"AGENT_HOME": home}[k] },
			})
			if code != exitcode.Usage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitcode.Usage, tt.want)
			}
		})
	}
}

func TestProxyCommandConfigAndFlags(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Status(500)})
	home := t.TempDir()
	cfg := "[proxy]\nupstream = \"" + srv.URL + "\"\nmax_retries = 3\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// The flag beats [proxy] max_retries: one retry, then the 500 passes.
	p := startAgentProxy(t, home, nil, "--max-retries", "1")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url+"/responses", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || resp.Header.Get(proxy.HeaderAttempts) != "2" {
		t.Errorf("got %d after %s attempts; want 500 after 2", resp.StatusCode, resp.Header.Get(proxy.HeaderAttempts))
	}
	if !strings.Contains(p.stderr.String(), "up to 1 retries per request, 3 at once") {
		t.Errorf("banner:\n%s", p.stderr)
	}
	p.stop()
	http.DefaultClient.CloseIdleConnections()
}

// TestProxyDefaultsAgree keeps the three copies of the proxy defaults in
// step: config's [proxy] defaults, the proxy package's and the keyword
// lists shown in config.toml.example.
func TestProxyDefaultsAgree(t *testing.T) {
	t.Parallel()
	d := config.Default().Proxy
	if d.MaxRetries != proxy.DefaultMaxRetries || d.MaxConcurrentRetries != proxy.DefaultMaxConcurrentRetries ||
		d.MaxBodyBytes != proxy.DefaultMaxBodyBytes || d.WebSocket != proxy.WebSocketReject {
		t.Errorf("config [proxy] defaults %+v differ from the proxy package's", d)
	}
	f, err := os.Open(filepath.Join("..", "..", "config.toml.example"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lists := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		for _, key := range []string{"non_retryable_keywords", "retryable_keywords"} {
			if v, ok := strings.CutPrefix(sc.Text(), "# "+key+" = "); ok {
				lists[key] = parseStrings(t, v)
			}
		}
	}
	kw := modelclient.DefaultKeywords()
	if diff := cmp.Diff(kw.NonRetryable, lists["non_retryable_keywords"]); diff != "" {
		t.Errorf("config.toml.example non_retryable_keywords (-classifier +example):\n%s", diff)
	}
	if diff := cmp.Diff(kw.Retryable, lists["retryable_keywords"]); diff != "" {
		t.Errorf("config.toml.example retryable_keywords (-classifier +example):\n%s", diff)
	}
}

// parseStrings parses a TOML array of plain strings.
func parseStrings(t *testing.T, v string) []string {
	t.Helper()
	var out []string
	for _, s := range strings.Split(strings.Trim(strings.TrimSpace(v), "[]"), ",") {
		u, err := strconv.Unquote(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out = append(out, u)
	}
	return out
}

// TestCodexThroughProxy runs the real Codex CLI through agent proxy, as
// docs/proxy.md describes. It needs `npm install @openai/codex@0.169.0`
// in the repository root (or AGENT_TEST_CODEX naming the binary) and is
// skipped otherwise.
func TestCodexThroughProxy(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("AGENT_TEST_CODEX")
	if bin == "" {
		bin = filepath.Join("..", "..", "node_modules", ".bin", "codex")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("the Codex CLI is not installed (%v); run `npm install @openai/codex@0.169.0` in the repository root", err)
	}
	if testing.Short() {
		t.Skip("runs the Codex CLI; skipped in -short mode")
	}
	// Codex may also ask for other routes (model lists): those are logged,
	// not failures.
	srv := rt.New(rt.Script{
		rt.Error(503, "server_error", "", "Selected model is at capacity."),
		rt.Reply("r1", "m1", "hello codex, from behind agent proxy"),
	}, rt.Options{OnUnexpected: func(msg string) { t.Log(msg) }})
	srv.Start()
	defer srv.Close()
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)

	codexHome := t.TempDir()
	codexCfg := `model = "test-model"
model_provider = "agentproxy"

[model_providers.agentproxy]
name = "agent proxy"
base_url = "` + p.url + `"
env_key = "AGENT_PROXY_TEST_KEY"
wire_api = "responses"
request_max_retries = 0
supports_websockets = false
`
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, abs, "exec", "--skip-git-repo-check", "say hello")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{
		"CODEX_HOME=" + codexHome, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"),
		"AGENT_PROXY_TEST_KEY=" + fakeKey,
	}
	var stdout, stderr syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s\nproxy:\n%s", err, &stdout, &stderr, p.stderr)
	}
	if !strings.Contains(stdout.String(), "hello codex, from behind agent proxy") {
		t.Errorf("codex stdout lacks the reply:\n%s\nstderr:\n%s", &stdout, &stderr)
	}
	t.Logf("proxy log:\n%s", p.stderr)
	var posts int
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost {
			posts++
		}
	}
	if posts != 2 {
		t.Errorf("upstream saw %d POSTs; want 2 (one 503 absorbed by the proxy)", posts)
	}
}

// TestRetriesDoNotMultiplyBehindTheProxy: agent exec behind agent proxy,
// with an upstream that answers 500 for good. The proxy spends its budget
// (1 + max_retries requests) and answers; agent does not retry that answer
// in any layer, so the upstream sees the proxy's budget alone, not the
// product of both clients' budgets. A stream the proxy relayed and that
// broke is still retried by agent's stream layer.
func TestRetriesDoNotMultiplyBehindTheProxy(t *testing.T) {
	t.Parallel()
	var script rt.Script
	for range 1 + config.DefaultProxyMaxRetries {
		script = append(script, rt.Status(500))
	}
	srv := rt.NewServer(t, script)
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nbase_url = \"" + p.url +
		"\"\nenv_key = \"FAKE_KEY\"\n"
	r := runCLI(t, nil, runOpts{config: cfg}, "exec", "--no-auto-continue", "hi")
	if r.code == 0 {
		t.Fatalf("exec succeeded against an upstream that always fails:\n%s", r.stderr)
	}
	if n, want := len(srv.Requests()), 1+config.DefaultProxyMaxRetries; n != want {
		t.Errorf("upstream saw %d requests; want %d (the proxy's budget alone)", n, want)
	}
	if len(r.sleeps) != 0 {
		t.Errorf("agent waited to retry the proxy's final answer: %v\n%s", r.sleeps, r.stderr)
	}
	logs, _ := os.ReadFile(filepath.Join(r.home, "log", "agent.log"))
	if n := strings.Count(string(logs), "behind a retrying proxy"); n != 1 {
		t.Errorf("agent.log says it is behind a retrying proxy %d times; want once:\n%s", n, logs)
	}

	// The stream layer stays: a stream cut after the proxy committed it
	// is retried by agent, once, and answered.
	srv2 := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "par"), rt.Drop()),
		rt.Reply("r2", "m2", "whole answer"),
	})
	p2 := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv2.URL)
	cfg2 := strings.Replace(cfg, p.url, p2.url, 1)
	r = runCLI(t, nil, runOpts{config: cfg2}, "exec", "hi")
	if r.code != 0 || r.stdout != "whole answer\n" {
		t.Fatalf("cut stream behind the proxy: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv2.Requests()); n != 2 {
		t.Errorf("upstream saw %d requests for a cut stream; want 2", n)
	}
}
