package modelclient_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/tools/patch"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/chat"
)

func item(t *testing.T, raw string) transport.Item {
	t.Helper()
	it, err := transport.ParseItem(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// TestChatEncoder: the session's history becomes chat messages
// (instructions as the system message, the assistant's text and its
// parallel calls one message with tool_calls, each output a tool message,
// images image_url parts, reasoning not sent back), tools become
// functions (the freeform apply_patch a function with a string argument,
// tools without a chat form left out), streamed with the usage asked for.
func TestChatEncoder(t *testing.T) {
	input := []transport.Item{
		transport.DeveloperMessage("sandbox: read-only"),
		transport.UserMessageWithImages("what is this?", []string{"data:image/png;base64,AAAA"}),
		item(t, `{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"x"}`),
		item(t, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking."}]}`),
		item(t, `{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}`),
		item(t, `{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"}`),
		transport.CallOutput("c1", "a.txt", false),
		transport.CallOutputWithImages("c2", "done", []string{"data:image/png;base64,BBBB"}, true),
		transport.UserMessage("thanks"),
	}
	body, err := modelclient.Chat().Encoder.Body(&modelclient.Call{
		Prompt: &modelclient.Prompt{Instructions: "be brief", Input: input, ParallelToolCalls: true,
			Tools: []json.RawMessage{patch.FreeformSpec(), json.RawMessage(`{"type":"function","name":"exec_command","description":"run","strict":false,"parameters":{"type":"object"}}`),
				json.RawMessage(`{"type":"web_search","external_web_access":false}`)}},
		Settings:  modelclient.Settings{Model: "qwen3", ReasoningEffort: "high"},
		SessionID: "sess-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	tools := got["tools"].([]any)
	delete(got, "tools")
	img := func(u string) map[string]any {
		return map[string]any{"type": "image_url", "image_url": map[string]any{"url": u}}
	}
	want := map[string]any{
		"model": "qwen3", "stream": true, "stream_options": map[string]any{"include_usage": true},
		"tool_choice": "auto", "parallel_tool_calls": true, "reasoning_effort": "high",
		"messages": []any{
			map[string]any{"role": "system", "content": "be brief"},
			map[string]any{"role": "system", "content": "sandbox: read-only"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "what is this?"}, img("data:image/png;base64,AAAA")}},
			map[string]any{"role": "assistant", "content": "Looking.", "tool_calls": []any{
				map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "exec_command", "arguments": `{"cmd":"ls"}`}},
				map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "apply_patch", "arguments": `{"input":"*** Begin Patch\n*** End Patch"}`}},
			}},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
			map[string]any{"role": "tool", "tool_call_id": "c2", "content": "done"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "The images the tool calls returned:"}, img("data:image/png;base64,BBBB")}},
			map[string]any{"role": "user", "content": "thanks"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if len(tools) != 2 {
		t.Fatalf("tools = %v; want apply_patch and exec_command", tools)
	}
	patchTool := tools[0].(map[string]any)["function"].(map[string]any)
	params := patchTool["parameters"].(map[string]any)
	if patchTool["name"] != "apply_patch" || params["properties"].(map[string]any)["input"].(map[string]any)["type"] != "string" {
		t.Errorf("apply_patch as a function = %v; want a string argument input", patchTool)
	}
	if f := tools[1].(map[string]any); f["type"] != "function" || f["function"].(map[string]any)["name"] != "exec_command" {
		t.Errorf("exec_command = %v", f)
	}
}

// TestChatEncoderWithoutTools: no tool fields at all (OpenAI refuses
// parallel_tool_calls without tools); an assistant message that only
// calls tools has null content.
func TestChatEncoderWithoutTools(t *testing.T) {
	body, err := modelclient.Chat().Encoder.Body(&modelclient.Call{Prompt: &modelclient.Prompt{Input: []transport.Item{
		transport.UserMessage("hi"),
		item(t, `{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`),
		transport.CallOutput("c1", "ok", false),
	}}, Settings: modelclient.Settings{Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(body, &got)
	for _, k := range []string{"tools", "tool_choice", "parallel_tool_calls", "prompt_cache_key", "previous_response_id"} {
		if _, ok := got[k]; ok {
			t.Errorf("body has %q: %s", k, body)
		}
	}
	msgs := got["messages"].([]any)
	if a := msgs[1].(map[string]any); a["content"] != nil || a["role"] != "assistant" {
		t.Errorf("assistant message = %v; want null content", a)
	}
}

// TestChatServersErrors: the error bodies of the Chat Completions servers
// (Ollama's string error, vLLM's and llama.cpp's numeric codes and context
// errors, OpenRouter's metadata, LiteLLM's string codes) go through the
// one classifier, as an HTTP answer and as an error chunk mid-stream:
// the verdict, the server's message and its delay.
func TestChatServersErrors(t *testing.T) {
	tests := []struct {
		file    string
		status  int
		kind    modelclient.Kind
		message string
		delay   time.Duration
	}{
		{"ollama_404.json", 404, modelclient.KindPermanent, `model "qwen3:32b" not found, try pulling it first`, 0},
		{"ollama_v1_404.json", 404, modelclient.KindPermanent, `model "qwen3" not found, try pulling it first`, 0},
		{"vllm_400_context.json", 400, modelclient.KindContextWindow, "This model's maximum context length is 32768 tokens.", 0},
		{"llamacpp_400_context.json", 400, modelclient.KindContextWindow, "the request exceeds the available context size, try increasing it", 0},
		{"llamacpp_503_loading.json", 503, modelclient.KindServerError, "Loading model", 0},
		{"openrouter_429.json", 429, modelclient.KindRateLimited, "Rate limit exceeded: free-models-per-min.", 0},
		{"openrouter_502_provider.json", 502, modelclient.KindServerError, "Provider returned error (DeepInfra: upstream connect error)", 0},
		{"openrouter_402.json", 402, modelclient.KindQuota, "Insufficient credits.", 0},
		{"litellm_429.json", 429, modelclient.KindRateLimited, "litellm.RateLimitError", 1200 * time.Millisecond},
		{"litellm_401.json", 401, modelclient.KindAuth, "Incorrect API key provided", 0},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("testdata/chaterrors/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tt.file+"/http", func(t *testing.T) {
			f := modelclient.Classify(&transport.HTTPError{StatusCode: tt.status, Header: http.Header{}, Body: body})
			if f.Kind != tt.kind || !strings.Contains(f.Message, tt.message) || f.Delay != tt.delay {
				t.Errorf("Classify = {%v %q delay %v}; want {%v %q delay %v}", f.Kind, f.Message, f.Delay, tt.kind, tt.message, tt.delay)
			}
		})
		t.Run(tt.file+"/chunk", func(t *testing.T) {
			st := chat.Decoder{}.NewStream()
			err := st.Decode("", string(body), func(transport.Event) bool { return true })
			f := modelclient.Classify(err)
			want := tt.kind
			if strings.HasPrefix(tt.file, "ollama") {
				want = modelclient.KindServerError // no status to judge by: retried, as an unknown code
			}
			if f.Kind != want || !strings.Contains(f.Message, tt.message) {
				t.Errorf("Classify(chunk error %v) = {%v %q}; want {%v %q}", err, f.Kind, f.Message, want, tt.message)
			}
		})
	}
}
