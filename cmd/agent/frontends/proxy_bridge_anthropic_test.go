package frontends

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// claudeToolServer is a scripted Anthropic Messages server that, like
// Claude, thinks (a signed thinking block), then calls the shell tool the
// request offers to echo a word; once a tool_result carries the output it
// answers with it. It reads the key from x-api-key, as the API does.
type claudeToolServer struct {
	mu     sync.Mutex
	bodies [][]byte
	keys   []string
}

// claudeSignature stands for the opaque signature of a thinking block.
const claudeSignature = "EqQBCgIYAhIMbridgedSignature=="

func (s *claudeToolServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no route"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.keys = append(s.keys, r.Header.Get("X-Api-Key")+" "+r.Header.Get("Anthropic-Version")+" "+r.Header.Get("Authorization"))
	s.mu.Unlock()
	var req struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": map[string]any{"id": "msg_bridge", "type": "message", "role": "assistant",
		"content": []any{}, "model": "claude-test", "usage": map[string]any{"input_tokens": 50, "output_tokens": 1}}})
	end := func(reason string) {
		event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": reason}, "usage": map[string]any{"output_tokens": 9}})
		event("message_stop", map[string]any{})
	}
	if out, ok := toolResultText(req.Messages); ok {
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "The command printed: " + strings.TrimSpace(lastLine(out))}})
		event("content_block_stop", map[string]any{"index": 0})
		end("end_turn")
		return
	}
	args := map[string]map[string]any{
		"exec_command":  {"cmd": "echo bridged-shell-ok"},
		"shell_command": {"command": "echo bridged-shell-ok"},
		"shell":         {"command": []string{"bash", "-lc", "echo bridged-shell-ok"}},
	}
	event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
	event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": "I should run it."}})
	event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "signature_delta", "signature": claudeSignature}})
	event("content_block_stop", map[string]any{"index": 0})
	for _, tl := range req.Tools {
		if a, ok := args[tl.Name]; ok {
			b, _ := json.Marshal(a)
			event("content_block_start", map[string]any{"index": 1, "content_block": map[string]any{"type": "tool_use", "id": "toolu_bridge_1", "name": tl.Name, "input": map[string]any{}}})
			half := len(b) / 2 // the input in two input_json_delta fragments
			event("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b[:half])}})
			event("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b[half:])}})
			event("content_block_stop", map[string]any{"index": 1})
			end("tool_use")
			return
		}
	}
	event("content_block_start", map[string]any{"index": 1, "content_block": map[string]any{"type": "text", "text": "no shell tool was offered"}})
	event("content_block_stop", map[string]any{"index": 1})
	end("end_turn")
}

// toolResultText is the text of the last tool_result block of the
// conversation, if there is one.
func toolResultText(msgs []struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].Content {
			var b struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(c, &b) != nil || b.Type != "tool_result" {
				continue
			}
			var text string
			if json.Unmarshal(b.Content, &text) == nil {
				return text, true
			}
			return string(b.Content), true
		}
	}
	return "", false
}

// TestCodexThroughProxyToAnthropicServer: Codex 0.171 pointed at `agent
// proxy` runs a turn against a server that speaks only Anthropic's
// Messages API: the thinking comes back to Codex as a reasoning item,
// the tool_use (in input_json_delta fragments) runs as Codex's shell
// call, and the next request sends the signed thinking block back
// unmodified before the tool_use, the output as a tool_result. Every
// request carries the proxy's key as x-api-key with anthropic-version,
// never a bearer token, and is a Messages request, never a Responses one.
func TestCodexThroughProxyToAnthropicServer(t *testing.T) {
	t.Parallel()
	claude := &claudeToolServer{}
	codexThroughProxy(t, claude, "anthropic")
	claude.mu.Lock()
	defer claude.mu.Unlock()
	if len(claude.bodies) < 2 {
		t.Fatalf("%d Messages requests; want the call and the answer", len(claude.bodies))
	}
	for i, b := range claude.bodies {
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		if claude.keys[i] != fakeKey+" 2023-06-01 " || body["messages"] == nil || body["input"] != nil || body["max_tokens"] == nil {
			t.Errorf("Messages request %d: x-api-key, version, authorization %q; body %.300s; want the proxy's key as x-api-key and a Messages body", i, claude.keys[i], b)
		}
	}
	last := string(claude.bodies[len(claude.bodies)-1])
	thinking := `{"signature":"` + claudeSignature + `","thinking":"I should run it.","type":"thinking"}`
	call := strings.Index(last, `"type":"tool_use"`)
	if i := strings.Index(last, thinking); i < 0 || call < i {
		t.Errorf("the last request does not send the thinking block back, unmodified, before the tool_use:\n%s", last)
	}
	if !strings.Contains(last, `"tool_use_id":"toolu_bridge_1"`) || !strings.Contains(last, "bridged-shell-ok") {
		t.Errorf("the last request lacks the tool_result with the output:\n%s", last)
	}
}
