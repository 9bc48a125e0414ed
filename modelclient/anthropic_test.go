package modelclient_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/transport"
)

// TestAnthropicEncoder: the history as the Messages API takes it. A
// developer message joins the user's turn (the API has no such role and
// wants roles to alternate); images become image blocks (a data: URL's
// bytes as base64); a freeform call's text is its input's "input";
// arguments that are not an object are sent as the text they were;
// another provider's reasoning (no thinking block) is left out; a tool
// output with an image is a tool_result of blocks; without a reasoning
// effort there is no thinking; parallel calls off is said.
func TestAnthropicEncoder(t *testing.T) {
	item := func(s string) transport.Item {
		it, err := transport.ParseItem(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	input := []transport.Item{
		transport.DeveloperMessage("env context"),
		transport.UserMessageWithImages("look", []string{"data:image/png;base64,iVBORw0K"}),
		item(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"openai's"}],"encrypted_content":"gAAAAB"}`),
		item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Patching."}]}`),
		item(`{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"}`),
		item(`{"type":"custom_tool_call_output","call_id":"c1","output":"done"}`),
		item(`{"type":"function_call","call_id":"c2","name":"exec_command","arguments":"not json"}`),
		transport.CallOutputWithImages("c2", "shot", []string{"https://example.com/a.png"}, false),
	}
	body, err := modelclient.Anthropic().Encoder.Body(&modelclient.Call{
		Prompt: &modelclient.Prompt{Input: input, Tools: []json.RawMessage{
			json.RawMessage(`{"type":"function","name":"exec_command","description":"run","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}`),
			json.RawMessage(`{"type":"custom","name":"apply_patch","description":"patch","format":{"type":"grammar"}}`),
			json.RawMessage(`{"type":"web_search"}`),
		}},
		Settings: modelclient.Settings{Model: "claude-3-5-haiku-latest", ReasoningEffort: "none"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "claude-3-5-haiku-latest", "max_tokens": 8192.0, "stream": true,
		"tools": []any{
			map[string]any{"name": "exec_command", "description": "run", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"cmd": map[string]any{"type": "string"}}}},
			map[string]any{"name": "apply_patch", "description": "patch", "cache_control": map[string]any{"type": "ephemeral"},
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"input": map[string]any{"type": "string", "description": "The tool's input text."}}, "required": []any{"input"}}},
		},
		"tool_choice": map[string]any{"type": "auto", "disable_parallel_tool_use": true},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "env context"},
				map[string]any{"type": "text", "text": "look"},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
			}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Patching."},
				map[string]any{"type": "tool_use", "id": "c1", "name": "apply_patch", "input": map[string]any{"input": "*** Begin Patch"}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "c1", "content": "done"},
			}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "tool_use", "id": "c2", "name": "exec_command", "input": map[string]any{"arguments": "not json"}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "c2", "cache_control": map[string]any{"type": "ephemeral"}, "content": []any{
					map[string]any{"type": "text", "text": "shot"},
					map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}},
				}},
			}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestAnthropicHeader: the bearer token moves to x-api-key and
// anthropic-version is added; a provider's own x-api-key or version wins,
// and the headers given are not changed (the 401 recovery reads them).
func TestAnthropicHeader(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer sk-ant-1"}, "Session-Id": {"s"}}
	got := modelclient.Anthropic().Encoder.Header(h)
	if got.Get("X-Api-Key") != "sk-ant-1" || got.Get("Authorization") != "" || got.Get("Anthropic-Version") != "2023-06-01" || got.Get("Session-Id") != "s" {
		t.Errorf("header = %v", got)
	}
	if h.Get("Authorization") != "Bearer sk-ant-1" || h.Get("X-Api-Key") != "" {
		t.Errorf("the client's headers were changed: %v", h)
	}
	own := http.Header{"Authorization": {"Bearer gateway"}, "X-Api-Key": {"mine"}, "Anthropic-Version": {"2099-01-01"}}
	got = modelclient.Anthropic().Encoder.Header(own)
	if got.Get("X-Api-Key") != "mine" || got.Get("Authorization") != "Bearer gateway" || got.Get("Anthropic-Version") != "2099-01-01" {
		t.Errorf("a provider's own headers: %v", got)
	}
}

// TestAnthropicThinkingNeedsItsBlock: with thinking on, the API refuses a
// conversation whose final assistant message (the one before the
// lastmost tool_result) does not start with a thinking block ("Expected
// `thinking` or `redacted_thinking`, but found `tool_use`"): history from
// another provider (a failover mid-turn) or whose thinking was dropped is
// sent with thinking off for that request; once the model's own turn
// starts with its block, thinking is on again.
func TestAnthropicThinkingNeedsItsBlock(t *testing.T) {
	item := func(s string) transport.Item {
		it, err := transport.ParseItem(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	thinking := func(input ...transport.Item) any {
		body, err := modelclient.Anthropic().Encoder.Body(&modelclient.Call{
			Prompt:   &modelclient.Prompt{Instructions: "be brief", Input: input},
			Settings: modelclient.Settings{Model: "claude-sonnet-4-5", ReasoningEffort: "medium"},
		})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		_ = json.Unmarshal(body, &got)
		return got["thinking"]
	}
	user := transport.UserMessage("run it")
	call := item(`{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"}`)
	out := transport.CallOutput("c1", "ok", false)
	signed := item(`{"type":"reasoning","summary":[],"encrypted_content":"{\"type\":\"thinking\",\"thinking\":\"t\",\"signature\":\"sig\"}"}`)
	if th := thinking(user); th == nil {
		t.Error("a new turn: thinking off; want on")
	}
	if th := thinking(user, call, out); th != nil {
		t.Errorf("a tool loop whose call has no thinking block: thinking %v; want off", th)
	}
	if th := thinking(user, signed, call, out); th == nil {
		t.Error("a tool loop whose call follows its thinking block: thinking off; want on")
	}
	answer := item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`)
	if th := thinking(user, call, out, answer, transport.UserMessage("next")); th == nil {
		t.Error("a new turn after another provider's tool loop: thinking off; want on")
	}
}
