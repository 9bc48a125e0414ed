package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// watchedBuffer is a buffer safe for concurrent use that signals when a
// text appears in it.
type watchedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	waits map[string]chan struct{}
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	for s, ch := range w.waits {
		if strings.Contains(w.b.String(), s) {
			close(ch)
			delete(w.waits, s)
		}
	}
	return n, err
}

func (w *watchedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// when returns a channel closed once s has been written.
func (w *watchedBuffer) when(s string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if strings.Contains(w.b.String(), s) {
		close(ch)
		return ch
	}
	if w.waits == nil {
		w.waits = map[string]chan struct{}{}
	}
	w.waits[s] = ch
	return ch
}

// bgRun is one in-process run of the CLI in the background.
type bgRun struct {
	done           chan struct{}
	code           int
	stdout, stderr *watchedBuffer
	home           string
}

// startCLI runs the CLI with a config holding the fake model provider at
// srv and extra (MCP tables), in a fresh home, in the background.
func startCLI(t *testing.T, ctx context.Context, srv *rt.Server, extra string, args ...string) *bgRun {
	t.Helper()
	home := t.TempDir()
	cfg := extra
	if srv != nil {
		cfg = "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nbase_url = \"" + srv.URL +
			"\"\nenv_key = \"FAKE_KEY\"\n\n" + extra
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &bgRun{done: make(chan struct{}), stdout: &watchedBuffer{}, stderr: &watchedBuffer{}, home: home}
	env := map[string]string{"AGENT_HOME": home, "FAKE_KEY": fakeKey, "PATH": os.Getenv("PATH"), "MCP_TOKEN": "tok-1"}
	go func() {
		defer close(r.done)
		r.code = run(ctx, args, Env{
			Stdin:  strings.NewReader(""),
			Stdout: r.stdout,
			Stderr: r.stderr,
			Getenv: func(k string) string { return env[k] },
			Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
			Rand:   func() float64 { return 0.5 },
		})
	}()
	t.Cleanup(func() { <-r.done })
	return r
}

// wait waits for the run to end.
func (r *bgRun) wait(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-r.done:
	case <-ctx.Done():
		t.Fatalf("the run did not end before the test's deadline; stderr:\n%s", r.stderr)
	}
}

// await waits for ch, failing with what it was waiting for.
func await(t *testing.T, ctx context.Context, ch <-chan struct{}, what string, r *bgRun) {
	t.Helper()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("%s did not happen before the test's deadline; stderr:\n%s", what, r.stderr)
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// requestTools lists the tool names of a recorded request.
func requestTools(req rt.Request) []string {
	var out []string
	tools, _ := req.JSON["tools"].([]any)
	for _, x := range tools {
		if m, ok := x.(map[string]any); ok {
			name, _ := m["name"].(string)
			if name == "" {
				name, _ = m["type"].(string) // a hosted tool: {"type": "web_search"}
			}
			out = append(out, name)
		}
	}
	return out
}

// TestExecMCPToolCall: a scripted model calls a tool of a test MCP server,
// over stdio and over streamable HTTP; the result reaches the next request
// as a function_call_output, and exec --json reports an mcp_tool_call.
func TestExecMCPToolCall(t *testing.T) {
	t.Parallel()
	schema := execSchema(t)
	bin := agenttest.StdioMCPServer(t)
	tests := []struct {
		name      string
		table     func(t *testing.T) string
		tool      string
		args      string
		output    string // the function_call_output, exactly or (for a prefix ending in "…") its start
		status    string
		hasResult bool
	}{
		{"stdio echo", func(t *testing.T) string {
			return "[mcp_servers.test]\ncommand = " + agenttest.QuoteTOML(bin) + "\nargs = [\"-stderr\", \"serving on stdio\"]\ndefault_tools_approval_mode = \"approve\"\n"
		}, "echo", `{"text":"hi"}`, "hi", "completed", true},
		{"http echo with a bearer token", func(t *testing.T) string {
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
			return "[mcp_servers.test]\nurl = \"" + srv.URL + "\"\nbearer_token_env_var = \"MCP_TOKEN\"\ndefault_tools_approval_mode = \"approve\"\n"
		}, "echo", `{"text":"hi"}`, "hi", "completed", true},
		{"http add with structured content", func(t *testing.T) string {
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
			return "[mcp_servers.test]\nurl = \"" + srv.URL + "\"\ndefault_tools_approval_mode = \"approve\"\n"
		}, "add", `{"a":2,"b":3}`, `{"sum":5}`, "completed", true},
		{"tool timeout", func(t *testing.T) string {
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Block: true}})
			return "[mcp_servers.test]\nurl = \"" + srv.URL + "\"\ntool_timeout_sec = 0.05\ndefault_tools_approval_mode = \"approve\"\n"
		}, "block", `{}`, `the MCP tool call timed out after 50ms (tool_timeout_sec of server "test")`, "failed", false},
		// As Codex 0.169 (docs/codex-compat.md, MCP): exec runs under
		// approval_policy never, and a tool without annotations needs
		// approval, so its call is refused with Codex's words.
		{"refused without approval_mode", func(t *testing.T) string {
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
			return "[mcp_servers.test]\nurl = \"" + srv.URL + "\"\n"
		}, "echo", `{"text":"hi"}`, "MCP tool call requires approval, but approval policy is never", "failed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			name := "mcp__test__" + tt.tool
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), rt.Stall(), rt.FunctionCallDone("fc", "call_1", name, tt.args), rt.Completed("r1")),
				rt.Reply("r2", "m2", "done"),
			})
			r := startCLI(t, ctx, srv, tt.table(t), "exec", "--json", "-C", t.TempDir(), "use the tool")
			// exec waited for the server: its tools are in the first request.
			await(t, ctx, r.stderr.when(`agent: mcp: server "test" ready`), "the server's ready notice", r)
			srv.Release()
			r.wait(t, ctx)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests; want 2", len(reqs))
			}
			if got := agenttest.OutputOf(t, reqs[1], "call_1"); got != tt.output {
				t.Errorf("function_call_output = %q; want %q", got, tt.output)
			}
			for i, req := range reqs {
				if !strings.Contains(strings.Join(requestTools(req), " "), name) {
					t.Errorf("request %d's tools %v lack %s", i+1, requestTools(req), name)
				}
			}
			item := mcpItem(t, schema, r.stdout.String())
			want := map[string]any{"type": "mcp_tool_call", "server": "test", "tool": tt.tool, "status": tt.status}
			got := map[string]any{"type": item["type"], "server": item["server"], "tool": item["tool"], "status": item["status"]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mcp_tool_call item (-want +got):\n%s", diff)
			}
			if args, _ := json.Marshal(item["arguments"]); string(args) != tt.args {
				t.Errorf("item arguments = %s; want %s", args, tt.args)
			}
			if (item["result"] != nil) != tt.hasResult || (item["error"] != nil) == tt.hasResult {
				t.Errorf("item result = %v, error = %v", item["result"], item["error"])
			}
		})
	}
}

// mcpItem returns the one completed mcp_tool_call item of a JSONL
// transcript, validating every line against the schema and checking that
// an item.started of the same id came first.
func mcpItem(t *testing.T, schema interface{ Validate(any) error }, jsonl string) map[string]any {
	t.Helper()
	var found []map[string]any
	started := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %s: %v", sc.Text(), err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("line %s does not match the schema: %v", sc.Text(), err)
		}
		ev := v.(map[string]any)
		if item, ok := ev["item"].(map[string]any); ok && item["type"] == "mcp_tool_call" {
			switch ev["type"] {
			case "item.started":
				started[item["id"].(string)] = true
				if item["status"] != "in_progress" || item["result"] != nil {
					t.Errorf("started item %s: want status in_progress and no result", sc.Text())
				}
			case "item.completed":
				if !started[item["id"].(string)] {
					t.Errorf("item %s completed without an item.started", item["id"])
				}
				found = append(found, item)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d mcp_tool_call items in:\n%s", len(found), jsonl)
	}
	return found[0]
}

// TestExecMCPWaitsForSlowServer: exec waits for a server that is still
// starting, as the reference client does, but no longer than its
// startup_timeout_sec: the first model request goes out only then, without
// the tools of a server that never came up, and the turn completes.
func TestExecMCPWaitsForSlowServer(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	mcpSrv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Hold: true})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.MessageDone("m1", "answered without it"), rt.Completed("r1")),
	})
	r := startCLI(t, ctx, srv, "[mcp_servers.slow]\nurl = \""+mcpSrv.URL+"\"\nstartup_timeout_sec = 0.2\n", "exec", "-C", t.TempDir(), "hi")
	r.wait(t, ctx)
	if r.code != 0 || r.stdout.String() != "answered without it\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	notice := `agent: mcp: server "slow" failed to start`
	stderr := r.stderr.String()
	if !strings.Contains(stderr, notice) {
		t.Fatalf("stderr lacks %q:\n%s", notice, stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d model requests; want 1", len(srv.Requests()))
	}
	if tools := requestTools(srv.Requests()[0]); strings.Contains(strings.Join(tools, " "), "mcp__") {
		t.Errorf("the first request offered %v from a server that never started", tools)
	}
}

// TestExecMCPBrokenServers: a server that fails to start is one line on
// stderr (and its stderr is in the log, not on the screen); one that
// crashes mid-call gives the model an error output and the user a notice;
// the session goes on either way.
func TestExecMCPBrokenServers(t *testing.T) {
	t.Parallel()
	bin := agenttest.StdioMCPServer(t)
	// The test's 30 s start once the server is built: on a fresh clone at
	// a load of 20 the build took them all, and the test failed.
	ctx := testContext(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Stall(), rt.FunctionCallDone("fc", "call_1", "mcp__test__crash", `{}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", "carried on"),
	})
	tables := "[mcp_servers.broken]\ncommand = " + agenttest.QuoteTOML(bin) + "\nargs = [\"-fail\", \"cannot read my settings\"]\n\n" +
		"[mcp_servers.test]\ncommand = " + agenttest.QuoteTOML(bin) + "\nargs = [\"-crash\"]\ndefault_tools_approval_mode = \"approve\"\n"
	r := startCLI(t, ctx, srv, tables, "exec", "-C", t.TempDir(), "crash it")
	await(t, ctx, r.stderr.when(`agent: mcp: server "broken" failed to start`), "the broken server's notice", r)
	await(t, ctx, r.stderr.when(`agent: mcp: server "test" ready (3 tools)`), "the crashing server's ready notice", r)
	srv.Release()
	r.wait(t, ctx)
	if r.code != 0 || r.stdout.String() != "carried on\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := agenttest.OutputOf(t, srv.Requests()[1], "call_1")
	if !strings.HasPrefix(out, `the MCP server "test" stopped during the call: exit status 3`) {
		t.Errorf("the model was told %q; want that the server stopped", out)
	}
	stderr := r.stderr.String()
	for _, want := range []string{
		`agent: mcp: server "broken" failed to start: `, `cannot read my settings`, "; continuing without its tools\n",
		`agent: mcp: server "test" stopped: exit status 3`, "; its tools are no longer available\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, `"broken"`); n != 1 {
		t.Errorf("the broken server is mentioned %d times on stderr; want one line:\n%s", n, stderr)
	}
	logs, _ := os.ReadFile(filepath.Join(r.home, "log", "agent.log"))
	if !strings.Contains(string(logs), "cannot read my settings") || !strings.Contains(string(logs), "crashing on purpose") {
		t.Errorf("the servers' stderr is not in the log:\n%s", logs)
	}
}

// TestMCPCommands: add, list, get and remove round-trip on a config file
// with comments and other tables, which they keep.
func TestMCPCommands(t *testing.T) {
	t.Parallel()
	const original = `# my settings
model = "gpt-5.5" # the default

[history]
# keep everything
persistence = "save-all"
`
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	if err := os.WriteFile(path, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AGENT_HOME": home}
	cli := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
			Getenv: func(k string) string { return env[k] }})
		return code, stdout.String(), stderr.String()
	}
	mustCLI := func(args ...string) string {
		t.Helper()
		code, out, errOut := cli(args...)
		if code != 0 {
			t.Fatalf("agent %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		return out
	}

	if out := mustCLI("mcp", "list"); !strings.Contains(out, "No MCP servers configured") {
		t.Errorf("list with none = %q", out)
	}
	if out := mustCLI("mcp", "add", "docs", "--env", "DOCS_TOKEN=s3cret", "--", "docs-mcp", "--stdio", "--root", "/a b"); out != "Added MCP server \"docs\" in "+path+"\n" {
		t.Errorf("add = %q", out)
	}
	mustCLI("mcp", "add", "web", "--url", "https://mcp.example/mcp", "--bearer-token-env-var", "WEB_TOKEN")
	want := original + `
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio", "--root", "/a b"]
env = { DOCS_TOKEN = "s3cret" }

[mcp_servers.web]
url = "https://mcp.example/mcp"
bearer_token_env_var = "WEB_TOKEN"
`
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("config after add (-want +got):\n%s", cmp.Diff(want, string(got)))
	}

	list := mustCLI("mcp", "list")
	for _, s := range []string{"NAME", "docs", `docs-mcp --stdio --root "/a b"`, "web", "https://mcp.example/mcp", "streamable-http", "enabled"} {
		if !strings.Contains(list, s) {
			t.Errorf("list lacks %q:\n%s", s, list)
		}
	}
	get := mustCLI("mcp", "get", "docs")
	if !strings.Contains(get, "DOCS_TOKEN=*****") || strings.Contains(get, "s3cret") || !strings.Contains(get, "tool_timeout_sec:") {
		t.Errorf("get docs (values must be masked):\n%s", get)
	}
	var servers []map[string]any
	if err := json.Unmarshal([]byte(mustCLI("mcp", "list", "--json")), &servers); err != nil || len(servers) != 2 ||
		servers[1]["url"] != "https://mcp.example/mcp" || strings.Contains(mustCLI("mcp", "list", "--json"), "s3cret") {
		t.Errorf("list --json = %v, %v", servers, err)
	}

	// Replacing keeps the table's place.
	mustCLI("mcp", "add", "docs", "--", "docs-mcp-v2")
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), "[mcp_servers.docs]\ncommand = \"docs-mcp-v2\"\n\n[mcp_servers.web]") {
		t.Errorf("config after replacing docs:\n%s", got)
	}

	mustCLI("mcp", "remove", "docs")
	mustCLI("mcp", "remove", "web")
	if got, _ := os.ReadFile(path); string(got) != original {
		t.Errorf("config after removing both (-want +got):\n%s", cmp.Diff(original, string(got)))
	}

	checkMCPRefusals(t, cli)
	if got, _ := os.ReadFile(path); string(got) != original {
		t.Errorf("refused commands changed the config:\n%s", got)
	}
}

// checkMCPRefusals runs agent mcp commands that must be refused, each
// with its exit code and the reason.
func checkMCPRefusals(t *testing.T, cli func(args ...string) (int, string, string)) {
	t.Helper()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"mcp", "remove", "docs"}, exitcode.Failed, `no MCP server named "docs"`},
		{[]string{"mcp", "get", "docs"}, exitcode.Failed, `no MCP server named "docs"`},
		{[]string{"mcp", "add", "x"}, exitcode.Usage, "say how to reach the server"},
		{[]string{"mcp", "add", "x", "--url", "http://h/mcp", "--", "cmd"}, exitcode.Usage, "not both"},
		{[]string{"mcp", "add", "x", "cmd"}, exitcode.Usage, "after --"},
		{[]string{"mcp", "add", "bad name", "--", "cmd"}, exitcode.Usage, "invalid server name"},
		{[]string{"mcp", "add", "x", "--url", "not-a-url"}, exitcode.Usage, "invalid URL"},
		{[]string{"mcp", "add", "x", "--env", "NOEQUALS", "--", "cmd"}, exitcode.Usage, "want KEY=VALUE"},
	} {
		code, _, errOut := cli(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("agent %s: exit %d, %q; want exit %d with %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.msg)
		}
	}
}
