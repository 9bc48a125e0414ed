package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/session/hooks"
)

// LastUserText is the text of the last user message of a Responses body:
// the prompt, after the environment context.
func LastUserText(body []byte) string {
	msgs, _ := rt.InputMessages(body)
	for _, m := range slices.Backward(msgs) {
		if m.Role == "user" && len(m.Text) > 0 {
			return m.Text[0]
		}
	}
	return ""
}

// CallOutput returns the output the second request carried for call_1.
func CallOutput(t *testing.T, srv *rt.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	for _, it := range reqs[1].JSON["input"].([]any) {
		m := it.(map[string]any)
		if m["type"] == "function_call_output" && m["call_id"] == "call_1" {
			return m["output"].(string)
		}
	}
	t.Fatal("no function_call_output for call_1")
	return ""
}

// ExecCallStep is the model calling exec_command with cmd (call_1).
func ExecCallStep(cmd string) rt.Step {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args))
}

// HooksFile writes dir/hooks.json with one hook per event.
func HooksFile(t *testing.T, dir string, events map[hooks.Event]string) {
	t.Helper()
	groups := map[string]any{}
	for ev, cmd := range events {
		groups[string(ev)] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TrustState is the [hooks.state] text trusting every hook in home as it
// is now, as `/hooks` (agent's or Codex's) writes it.
func TrustState(t *testing.T, home string) string {
	t.Helper()
	var b strings.Builder
	for _, h := range hooks.Discover(hooks.Sources{Home: home}).All {
		fmt.Fprintf(&b, "\n[hooks.state.%q]\ntrusted_hash = %q\n", h.Key, h.Hash)
	}
	return b.String()
}

// ChildHooks writes, in home, trusted hooks that only a subagent's turn
// runs: a PreToolUse hook on Bash blocking rm (the child runs rm, the
// parent runs no command) and a SubagentStop hook that fails; it returns
// the [hooks.state] trusting them.
func ChildHooks(t *testing.T, home string) string {
	t.Helper()
	return WriteHooks(t, home, map[string]any{
		"PreToolUse":   HookGroup("Bash", `cat > /dev/null; echo "rm is not allowed here" >&2; exit 2`),
		"SubagentStop": HookGroup("", `cat > /dev/null; echo "audit log unavailable" >&2; exit 1`),
	})
}

// ChildScripts: the parent spawns an explorer (Euclid) and waits for it;
// the child tries rm -rf build, then answers.
func ChildScripts() map[string]rt.Script {
	fc := func(resp, id, name, args string) rt.Attempt {
		return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
	}
	return map[string]rt.Script{
		"parent task": {
			fc("p1", "c1", "spawn_agent", `{"message":"child task","agent_type":"explorer"}`),
			fc("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "all done"),
		},
		"child task": {
			rt.Stream(rt.Created("k1"), ExecCallStep("rm -rf build"), rt.Completed("k1")),
			rt.Reply("k2", "km2", "found 3 files"),
		},
	}
}

// NewPromptServer serves each prompt of scripts from its own script (a
// [PromptServer]), closed at the test's end.
func NewPromptServer(t *testing.T, scripts map[string]rt.Script) *PromptServer {
	t.Helper()
	ps := &PromptServer{Scripts: map[string]*rt.Server{}, seen: map[string]int{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // GET .../models (agent acp lists them): the fake's default answer
			rt.New(nil, rt.Options{}).Handler().ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		prompt := LastUserText(body)
		srv, ok := ps.Scripts[prompt]
		if !ok {
			t.Errorf("request for an unknown prompt %q: %s %s", prompt, r.Method, r.URL)
			http.Error(w, "unknown prompt", http.StatusInternalServerError)
			return
		}
		ps.mu.Lock()
		n := ps.seen[prompt]
		ps.seen[prompt]++
		ps.mu.Unlock()
		if ps.OnRequest != nil {
			ps.OnRequest(prompt, n)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ps.URL = hs.URL + "/v1"
	for prompt, script := range scripts {
		srv := rt.New(script, rt.Options{OnUnexpected: func(msg string) { t.Errorf("prompt %q: %s", prompt, msg) }})
		t.Cleanup(srv.Close) // runs before hs.Close: stalled handlers are released first
		ps.Scripts[prompt] = srv
	}
	return ps
}

// PromptServer is a fake Responses API that answers each prompt from its
// own script (one responsestest.Server per prompt), so concurrent jobs get
// the same answers whatever order their requests arrive in.
type PromptServer struct {
	URL     string
	Scripts map[string]*rt.Server
	// OnRequest, when set, runs before each request is answered, with the
	// prompt and the 0-based number of its request; it may block.
	OnRequest func(prompt string, n int)

	mu   sync.Mutex
	seen map[string]int
}

// StdioMCPServer is the built stdio MCP test server (skipped in -short
// mode).
func StdioMCPServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the stdio MCP test server; skipped in -short mode")
	}
	bin, err := McpServerBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// McpServerBinary is the built stdio test MCP server.
func McpServerBinary() (string, error) {
	dir, err := binaries()
	return filepath.Join(dir, path.Base(mcptest.Package)), err
}

// CompleteGoal is a response whose model calls update_goal complete.
func CompleteGoal(id string) rt.Attempt {
	return rt.Stream(rt.Created(id), rt.FunctionCallDone(id+"-g", id+"-c", "update_goal", `{"status":"complete"}`), rt.Completed(id))
}

// CreateGoal is a response whose model calls create_goal.
func CreateGoal(id, objective string) rt.Attempt {
	return rt.Stream(rt.Created(id), rt.FunctionCallDone(id+"-g", id+"-c", "create_goal", `{"objective":"`+objective+`"}`), rt.Completed(id))
}

// HookGroup is one matcher group of hooks.json with one command hook.
func HookGroup(matcher, cmd string) []any {
	g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return []any{g}
}

// WriteHooks writes home's hooks.json with groups by event, and returns
// the [hooks.state] trusting them.
func WriteHooks(t *testing.T, home string, groups map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return TrustState(t, home)
}

// LoginHome returns a fresh agent home whose config selects a provider
// "fake" at srv that uses the login (requires_openai_auth), plus extra.
func LoginHome(t *testing.T, srv *rt.Server, extra string) string {
	t.Helper()
	home := t.TempDir()
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nbase_url = \"" + srv.URL +
		"\"\nrequires_openai_auth = true\n" + extra
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// QuoteTOML is s as a TOML basic string.
func QuoteTOML(s string) string {
	b, _ := json.Marshal(s) // a JSON string of a path is a TOML basic string
	return string(b)
}

// GitRepo makes a repository with one commit and an uncommitted change.
func GitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n\nfunc Div(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "calc")
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n\nfunc Div(a, b int) int { return a / b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// inputText returns the text of every input item of a request body, as
// "role: text" lines.
func InputTexts(t *testing.T, req rt.Request) []string {
	t.Helper()
	msgs, err := rt.InputMessages(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		for _, text := range m.Text {
			out = append(out, m.Role+": "+text)
		}
	}
	return out
}

// PatchStep is the model calling apply_patch with patch as callID.
func PatchStep(callID, patch string) rt.Step {
	args, _ := json.Marshal(map[string]string{"input": patch})
	return rt.FunctionCallDone("fp"+callID, callID, "apply_patch", string(args))
}

// CompanionBinary makes sure the companion program name is built beside
// the agent binary.
func CompanionBinary(name string) error {
	if !slices.Contains(Companions, name) {
		return errors.New("no companion program " + name)
	}
	_, err := binaries()
	return err
}

// WaitForLine waits until buf's text matches re and returns the text,
// failing the test after 20 s.
func WaitForLine(t *testing.T, buf *syncbuf.Buffer, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if s := buf.String(); re.MatchString(s) {
			return s
		}
		select {
		case <-deadline.C:
			t.Fatalf("no %q in:\n%s", re, buf)
		case <-tick.C:
		}
	}
}

// OutputOf returns the function_call_output a request carried for callID.
func OutputOf(t *testing.T, req rt.Request, callID string) string {
	t.Helper()
	for _, it := range req.JSON["input"].([]any) {
		m := it.(map[string]any)
		if m["type"] == "function_call_output" && m["call_id"] == callID {
			return m["output"].(string)
		}
	}
	t.Fatalf("no function_call_output for %s", callID)
	return ""
}

// Config is a config.toml pointing at the server.
func (ps *PromptServer) Config() string {
	return "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" +
		ps.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
}

// Requests returns how many requests each prompt got.
func (ps *PromptServer) Requests() map[string]int {
	out := map[string]int{}
	for p, srv := range ps.Scripts {
		if n := len(srv.Requests()); n > 0 {
			out[p] = n
		}
	}
	return out
}

// ProxyListening matches the line agent proxy prints when it listens; its
// group is the base URL clients use (ending in /v1).
var ProxyListening = regexp.MustCompile(`listening on (http://\S+/v1)`)
