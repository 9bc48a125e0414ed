package frontends

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
)

// chatToolServer is a scripted Chat Completions server that, like a
// model, calls the shell tool the request offers (whichever of Codex's
// shell tools it is) to echo a word, then answers with the tool's output
// once a tool message carries it. It serves GET /v1/models too.
type chatToolServer struct {
	mu     sync.Mutex
	bodies [][]byte
	auth   []string
}

func (s *chatToolServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"qwen3","object":"model","owned_by":"local"}]}`)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		http.Error(w, "no route", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "qwen3",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	for _, m := range req.Messages {
		if text, ok := m.Content.(string); ok && m.Role == "tool" {
			chunk(map[string]any{"role": "assistant", "content": "The command printed: " + strings.TrimSpace(lastLine(text))}, nil)
			chunk(map[string]any{}, "stop")
			fmt.Fprint(w, "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":7,\"total_tokens\":57}}\n\ndata: [DONE]\n\n")
			return
		}
	}
	args := map[string]map[string]any{
		"exec_command":  {"cmd": "echo bridged-shell-ok"},
		"shell_command": {"command": "echo bridged-shell-ok"},
		"shell":         {"command": []string{"bash", "-lc", "echo bridged-shell-ok"}},
	}
	for _, tl := range req.Tools {
		if a, ok := args[tl.Function.Name]; ok {
			b, _ := json.Marshal(a)
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_bridge_1", "type": "function",
				"function": map[string]any{"name": tl.Function.Name, "arguments": string(b)}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
	}
	chunk(map[string]any{"content": "no shell tool was offered"}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// lastLine is the last non-empty line of s: the command's output in a
// tool message that wraps it with exit code and timing.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "bridged-shell-ok") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

// TestCodexThroughProxyToChatServer is the acceptance of the proxy's
// bridge: Codex 0.171 itself (npm, a private CODEX_HOME), pointed at
// `agent proxy`, runs a turn against a server that speaks only Chat
// Completions: the model's shell call runs in Codex and its output goes
// back as a tool message; Codex prints the answer. The chat server sees
// the proxy's key, never a Responses request.
func TestCodexThroughProxyToChatServer(t *testing.T) {
	t.Parallel()
	chat := &chatToolServer{}
	codexThroughProxy(t, chat, "chat")
	chat.mu.Lock()
	defer chat.mu.Unlock()
	if len(chat.bodies) < 2 {
		t.Fatalf("%d chat requests; want the call and the answer", len(chat.bodies))
	}
	for i, b := range chat.bodies {
		if chat.auth[i] != "Bearer "+fakeKey || strings.Contains(string(b), `"input"`) {
			t.Errorf("chat request %d: auth %q, body %.200s; want the proxy's key and chat messages", i, chat.auth[i], b)
		}
	}
	if last := string(chat.bodies[len(chat.bodies)-1]); !strings.Contains(last, `"tool_call_id":"call_bridge_1"`) || !strings.Contains(last, "bridged-shell-ok") {
		t.Errorf("the last chat request lacks the tool message with the output:\n%s", last)
	}
}

// codexThroughProxy runs one `codex exec` turn (Codex 0.171, a private
// CODEX_HOME, a Responses provider) through `agent proxy --provider` of
// an upstream speaking wire_api wire, served by up: the model's shell call
// must run in Codex, its output echoed back, and Codex must print the
// answer "The command printed: bridged-shell-ok".
func codexThroughProxy(t *testing.T, up http.Handler, wire string) {
	t.Helper()
	cli := codexCLI(t)
	bin := buildAgent(t)
	srv := httptest.NewServer(up)
	defer srv.Close()

	home := t.TempDir()
	cfg := "model = \"qwen3\"\nmodel_provider = \"local\"\n[model_providers.local]\nbase_url = \"" + srv.URL + "/v1\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"" + wire + "\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	proxyCmd, _, stderr := agentCmd(t, bin, home, "proxy", "--listen", "127.0.0.1:0", "--provider", "local")
	if err := proxyCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxyCmd.Process.Kill(); _ = proxyCmd.Wait() })
	base := agenttest.ProxyListening.FindStringSubmatch(agenttest.WaitForLine(t, stderr, agenttest.ProxyListening))[1]

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := codexCmd(ctx, t, cli, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json", "run echo bridged-shell-ok")
	codexHome := strings.TrimPrefix(cmd.Env[len(cmd.Env)-2], "CODEX_HOME=")
	codexCfg := "model = \"qwen3\"\nmodel_provider = \"bridge\"\n\n[model_providers.bridge]\nname = \"agent proxy\"\nbase_url = \"" + base + "\"\nwire_api = \"responses\"\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	var stderrText string
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		stderrText = string(ee.Stderr)
	}
	if err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s\nproxy:\n%s", err, out, stderrText, stderr)
	}
	var ran, answered bool
	for _, line := range strings.Split(string(out), "\n") {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "item.completed" {
			continue
		}
		switch ev.Item["type"] {
		case "command_execution":
			ran = ran || strings.Contains(fmt.Sprint(ev.Item["aggregated_output"]), "bridged-shell-ok")
		case "agent_message":
			answered = answered || ev.Item["text"] == "The command printed: bridged-shell-ok"
		}
	}
	if !ran || !answered {
		t.Errorf("codex ran the command %v, printed the answer %v; want both:\n%s\nproxy:\n%s", ran, answered, out, stderr)
	}
}
