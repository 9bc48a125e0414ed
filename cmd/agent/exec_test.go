package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

const ms = time.Millisecond

// fakeKey looks like nothing real on purpose; tests assert it never leaks.
const fakeKey = agenttest.FakeKey

// execRun is one in-process run of the CLI.
type execRun struct {
	code           int
	stdout, stderr string
	sleeps         []time.Duration
	home           string
}

type runOpts struct {
	config    string // config.toml contents; "%URL%" is replaced by the server URL
	env       map[string]string
	stdin     string
	stdinTTY  bool
	stderrTTY bool
	stdoutTTY bool
	ctx       context.Context
	onSleep   func(n int)
	keyring   auth.Keyring // nil: the OS keyring
	home      string       // AGENT_HOME; "" makes a new one
}

func runCLI(t *testing.T, srv *rt.Server, o runOpts, args ...string) execRun {
	t.Helper()
	home := o.home
	if home == "" {
		home = t.TempDir()
	}
	if o.config == "" && srv != nil {
		o.config = "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"
	}
	if srv != nil {
		o.config = strings.ReplaceAll(o.config, "%URL%", srv.URL)
	}
	if o.config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(o.config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// HOME is a directory of its own: the login shells of the model's
	// commands read no rc files of the machine (a slow or stuck one, such
	// as a stale pyenv lock, would make every command wait).
	env := map[string]string{"AGENT_HOME": home, "FAKE_KEY": fakeKey, "HOME": t.TempDir()}
	for k, v := range o.env {
		env[k] = v
	}
	var stdout, stderr bytes.Buffer
	var mu sync.Mutex
	var sleeps []time.Duration
	ctx := o.ctx
	if ctx == nil {
		ctx = t.Context()
	}
	code := run(ctx, args, Env{
		Stdin:  strings.NewReader(o.stdin),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		// The commands' environment is the process's with that HOME: a
		// login shell started from it reads no rc file of the machine.
		Environ:   func() []string { return agenttest.EnvironWithHome(env["HOME"]) },
		StdinTTY:  o.stdinTTY,
		StdoutTTY: o.stdoutTTY,
		StderrTTY: o.stderrTTY,
		Width:     func() int { return 40 },
		Keyring:   o.keyring,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			sleeps = append(sleeps, d)
			n := len(sleeps)
			mu.Unlock()
			if o.onSleep != nil {
				o.onSleep(n)
			}
			return ctx.Err()
		},
		Rand: func() float64 { return 0.5 },
	})
	r := execRun{code: code, stdout: stdout.String(), stderr: stderr.String(), sleeps: sleeps, home: home}
	assertNoSecret(t, r)
	return r
}

// assertNoSecret checks that the API key reached no output and no log.
func assertNoSecret(t *testing.T, r execRun) {
	t.Helper()
	logs, _ := os.ReadFile(filepath.Join(r.home, "log", "agent.log"))
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "log": string(logs)} {
		if strings.Contains(s, fakeKey) || strings.Contains(s, "LEAKCHECK") {
			t.Errorf("the API key leaked into %s:\n%s", name, s)
		}
	}
}

func TestExecRetriesThenPrintsReplyOnce(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Status(500), rt.Reply("r1", "m1", "hello from the model")})
	r := runCLI(t, srv, runOpts{}, "exec", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "hello from the model\n" {
		t.Errorf("stdout = %q; want the reply once", r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	for _, q := range reqs[1:] {
		if diff := cmp.Diff(reqs[0].JSON["input"], q.JSON["input"]); diff != "" {
			t.Errorf("retried input differs (-first +retry):\n%s", diff)
		}
	}
	if diff := cmp.Diff([]time.Duration{200 * ms, 400 * ms}, r.sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	for _, want := range []string{"Retrying request... 1/4 in 0.2s (500", "Retrying request... 2/4 in 0.4s (500"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	q := reqs[0]
	if got := q.Header.Get("Authorization"); got != "Bearer "+fakeKey {
		t.Errorf("Authorization = %q", got)
	}
	if q.JSON["model"] != "test-model" || q.JSON["stream"] != true || q.JSON["store"] != false || q.JSON["tool_choice"] != "auto" {
		t.Errorf("body = %s", q.Body)
	}
	for _, h := range []string{"session-id", "originator", "User-Agent"} {
		if q.Header.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	if q.JSON["prompt_cache_key"] != q.Header.Get("session-id") {
		t.Errorf("prompt_cache_key %v != session-id %q", q.JSON["prompt_cache_key"], q.Header.Get("session-id"))
	}
	logs, _ := os.ReadFile(filepath.Join(r.home, "log", "agent.log"))
	if n := strings.Count(string(logs), "msg=retry layer=http"); n != 2 {
		t.Errorf("log has %d http retry lines; want 2:\n%s", n, logs)
	}
}

func TestExecStreamCutLeavesNoFragment(t *testing.T) {
	t.Parallel()
	script := func() rt.Script {
		return rt.Script{
			rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "FRAGMENT "), rt.TextDelta("m1", "of a failed try"), rt.Drop()),
			rt.Reply("r2", "m2", "the good answer"),
		}
	}
	t.Run("pipe", func(t *testing.T) {
		r := runCLI(t, rt.NewServer(t, script()), runOpts{}, "exec", "hi")
		if r.code != 0 || r.stdout != "the good answer\n" {
			t.Errorf("exit %d stdout %q; want 0 and only the good answer", r.code, r.stdout)
		}
		if strings.Contains(r.stdout+r.stderr, "FRAGMENT") {
			t.Errorf("fragment shown without a terminal:\nstdout %q\nstderr %q", r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "Reconnecting... 1/5 in 0.2s (stream disconnected before completion") {
			t.Errorf("stderr lacks the reconnect notice:\n%s", r.stderr)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		r := runCLI(t, rt.NewServer(t, script()), runOpts{stderrTTY: true}, "exec", "hi")
		if r.code != 0 || r.stdout != "the good answer\n" {
			t.Errorf("exit %d stdout %q", r.code, r.stdout)
		}
		// Live on stderr: the fragment streamed, then was erased (cursor up
		// one row at width 40, clear to end of screen) before the notice.
		want := "FRAGMENT of a failed try\r\x1b[J"
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks the erased fragment %q:\n%q", want, r.stderr)
		}
		if i, j := strings.Index(r.stderr, "\x1b[J"), strings.Index(r.stderr, "Reconnecting"); i > j {
			t.Errorf("the fragment must be erased before the notice: %q", r.stderr)
		}
	})
}

func TestExecExitCodes(t *testing.T) {
	t.Parallel()
	cut := rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop())
	tests := []struct {
		name   string
		script rt.Script
		code   int
		stderr string
		reqs   int
	}{
		{"completed", rt.Script{rt.Reply("r", "m", "ok")}, exitcode.OK, "", 1},
		{"context window", rt.Script{rt.Stream(rt.Created("r"), rt.Failed("r", "context_length_exceeded", "too long"))},
			exitcode.Failed, "context window is full", 1},
		{"invalid request", rt.Script{rt.Error(400, "invalid_request_error", "", "bad field foo")}, exitcode.Failed, "bad field foo", 1},
		{"auth", rt.Script{rt.Status(401)}, exitcode.Auth, "authentication failed", 1},
		{"quota", rt.Script{rt.Error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota")}, exitcode.Quota, "quota", 1},
		{"usage limit shows reset", rt.Script{rt.StatusBody(429, `{"error":{"type":"usage_limit_reached","message":"limit","resets_at":4102444800}}`)},
			exitcode.Quota, "resets at 2100-01-01", 1},
		{"exhausted", rt.Script{cut, cut, cut, cut, cut, cut}, exitcode.Exhausted, "gave up after retries", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, tt.script)
			r := runCLI(t, srv, runOpts{env: map[string]string{"TZ": "UTC"}}, "exec", "--no-auto-continue", "hi")
			if r.code != tt.code {
				t.Errorf("exit %d; want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
			}
			if n := len(srv.Requests()); n != tt.reqs {
				t.Errorf("%d requests; want %d", n, tt.reqs)
			}
			if tt.code != exitcode.OK && r.stdout != "" {
				t.Errorf("stdout = %q; want nothing on failure", r.stdout)
			}
		})
	}
}

func TestExecInterrupted(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "part"), rt.Barrier("streaming"), rt.Stall())})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-srv.Reached("streaming")
		cancel()
	}()
	r := runCLI(t, srv, runOpts{ctx: ctx}, "exec", "hi")
	if r.code != exitcode.Interrupted {
		t.Errorf("exit %d; want 130; stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q; want nothing", r.stdout)
	}
	if !strings.Contains(r.stderr, "interrupted") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestExecPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		stdin    string
		stdinTTY bool
		want     string
		code     int
	}{
		{"argument", []string{"exec", "hello"}, "", true, "hello", 0},
		{"dash reads stdin", []string{"exec", "-"}, "from stdin\n", false, "from stdin", 0},
		{"absent reads stdin", []string{"exec"}, "piped prompt", false, "piped prompt", 0},
		{"prompt plus stdin", []string{"exec", "review"}, "diff --git a b\n", false, "review\n\n<stdin>\ndiff --git a b\n</stdin>", 0},
		{"no prompt at a terminal", []string{"exec"}, "", true, "", exitcode.Usage},
		{"empty stdin", []string{"exec", "-"}, "  \n", false, "", exitcode.Usage},
		{"too many args", []string{"exec", "a", "b"}, "", true, "", exitcode.Usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := rt.Script{rt.Reply("r", "m", "ok")}
			if tt.code != 0 {
				script = nil
			}
			srv := rt.NewServer(t, script)
			r := runCLI(t, srv, runOpts{stdin: tt.stdin, stdinTTY: tt.stdinTTY}, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d; want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			if tt.code != 0 {
				return
			}
			input := srv.Requests()[0].JSON["input"].([]any)
			msg := input[len(input)-1].(map[string]any)
			got := msg["content"].([]any)[0].(map[string]any)["text"]
			if got != tt.want {
				t.Errorf("prompt sent = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestExecConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		args   []string
		want   []string
	}{
		{"bad TOML", "model = \"x\"\nmodel_provider = \n", []string{"exec", "hi"}, []string{"config.toml:2"}},
		{"unknown key", "model = \"x\"\n\n[model_providers.a]\nbase_url = \"http://x\"\nbse_url = \"y\"\n", []string{"exec", "hi"}, []string{"config.toml:5", "bse_url"}},
		{"wrong type", "model = \"x\"\nstream = 1\nmodel_reasoning_effort = 5\n", []string{"exec", "hi"}, []string{"config.toml:", "model_reasoning_effort"}},
		{"unknown wire api", "[model_providers.a]\nbase_url = \"http://x\"\nwire_api = \"grpc\"\n", []string{"exec", "hi"}, []string{"config.toml:3", "wire_api"}},
		{"bad override", "", []string{"exec", "-c", "request_max_retries", "hi"}, []string{"request_max_retries"}},
		{"unknown provider", "model_provider = \"nope\"\n", []string{"exec", "hi"}, []string{"nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, nil, runOpts{config: tt.config, stdinTTY: true}, tt.args...)
			if r.code != exitcode.Usage {
				t.Errorf("exit %d; want 2; stderr:\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestExecMissingEnvKey(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, nil)
	r := runCLI(t, srv, runOpts{
		config: "model_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"MY_MISSING_KEY\"\nenv_key_instructions = \"get one at example.invalid\"\n",
		env:    map[string]string{"FAKE_KEY": ""},
	}, "exec", "hi")
	if r.code != exitcode.Auth {
		t.Errorf("exit %d; want 3", r.code)
	}
	for _, w := range []string{"MY_MISSING_KEY", "get one at example.invalid"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

func TestExecDemo(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, runOpts{config: "", stdinTTY: true}, "exec", "-c", "model_provider=demo", "what can you do")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if strings.Count(r.stdout, "[demo]") != 1 || !strings.Contains(r.stdout, `"what can you do"`) {
		t.Errorf("stdout = %q; want the demo answer exactly once", r.stdout)
	}
	for _, w := range []string{"offline demo provider", "Retrying request... 1/4", "Reconnecting... 1/5"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

func TestExecRetryPolicyFromConfig(t *testing.T) {
	t.Parallel()
	base := "model = \"m\"\nmodel_provider = \"fake\"\n\n[retry.rate_limit]\nbase_delay_ms = 500\n\n" +
		"[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"
	tests := []struct {
		name   string
		config string
		want   []time.Duration
	}{
		{"global class policy", base, []time.Duration{500 * ms, 1000 * ms}},
		{"provider overrides global", base + "\n[model_providers.fake.retry.rate_limit]\nbase_delay_ms = 50\nmax_delay_ms = 80\n",
			[]time.Duration{50 * ms, 80 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Status(429), rt.Status(429), rt.Reply("r", "m", "ok")})
			r := runCLI(t, srv, runOpts{config: tt.config}, "exec", "hi")
			if r.code != 0 {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if diff := cmp.Diff(tt.want, r.sleeps); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecTransportFlag(t *testing.T) {
	t.Parallel()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nsupports_websockets = true\n"
	for flag, want := range map[string]string{"auto": "WS", "https": "POST", "websocket": "WS"} {
		t.Run(flag, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
			r := runCLI(t, srv, runOpts{config: cfg}, "exec", "--transport", flag, "hi")
			if r.code != 0 || r.stdout != "ok\n" {
				t.Fatalf("exit %d stdout %q:\n%s", r.code, r.stdout, r.stderr)
			}
			if got := srv.Requests()[0].Method; got != want {
				t.Errorf("request method = %s; want %s", got, want)
			}
		})
	}
	r := runCLI(t, nil, runOpts{config: "", stdinTTY: true}, "exec", "--transport", "carrier-pigeon", "hi")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "carrier-pigeon") {
		t.Errorf("bad --transport: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestExecToolsSent(t *testing.T) {
	t.Parallel()
	kinds := func(srv *rt.Server) map[string]string {
		out := map[string]string{}
		for _, tl := range srv.Requests()[0].JSON["tools"].([]any) {
			m := tl.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" {
				name = m["type"].(string) // a hosted tool: {"type": "web_search"}
			}
			out[name] = m["type"].(string)
		}
		return out
	}
	// A custom provider gets apply_patch as a function tool.
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	if r := runCLI(t, srv, runOpts{}, "exec", "hi"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	want := map[string]string{"exec_command": "function", "write_stdin": "function", "apply_patch": "function", "update_plan": "function",
		"view_image": "function", "web_search": "web_search", "request_user_input": "function",
		// Codex's subagent tools, on by default as in Codex ([agents] max_depth 1).
		"spawn_agent": "function", "send_input": "function", "resume_agent": "function", "wait_agent": "function", "close_agent": "function",
		"create_goal": "function", "update_goal": "function", "get_goal": "function"}
	if diff := cmp.Diff(want, kinds(srv)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// The OpenAI provider takes custom tools: apply_patch is freeform.
	srv = rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	r := runCLI(t, srv, runOpts{config: "openai_base_url = \"%URL%\"\n", env: map[string]string{"OPENAI_API_KEY": fakeKey}}, "exec", "hi")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if got := kinds(srv)["apply_patch"]; got != "custom" {
		t.Errorf("apply_patch for openai is %q; want custom", got)
	}
}

func TestExecImage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := filepath.Join(dir, "shot.png")
	// The 8-byte PNG signature and an IHDR chunk header are enough for
	// content sniffing.
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"), 0o600)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "I see it")})
	r := runCLI(t, srv, runOpts{}, "exec", "-i", png, "what is this")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	in := srv.Requests()[0].JSON["input"].([]any)
	content := in[len(in)-1].(map[string]any)["content"].([]any)
	if len(content) != 2 || content[1].(map[string]any)["type"] != "input_image" || content[1].(map[string]any)["detail"] != "auto" ||
		!strings.HasPrefix(content[1].(map[string]any)["image_url"].(string), "data:image/png;base64,") {
		t.Errorf("user message content = %v", content)
	}
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("just text"), 0o600)
	if r := runCLI(t, nil, runOpts{stdinTTY: true}, "exec", "-i", txt, "x"); r.code != exitcode.Usage || !strings.Contains(r.stderr, "not an image") {
		t.Errorf("non-image: exit %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, runOpts{stdinTTY: true}, "exec", "-i", filepath.Join(dir, "missing.png"), "x"); r.code != exitcode.Usage {
		t.Errorf("missing image: exit %d", r.code)
	}
}
