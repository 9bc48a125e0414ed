package proxy_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
	"github.com/agentcli/agent/transport"
)

// bridgedRequest is a Responses request as Codex sends one in the middle
// of a turn: instructions, a user message whose content is a string, the
// model's earlier call and its output, a function and a freeform tool.
const bridgedRequest = `{"model":"qwen3","instructions":"You are a coding agent.","stream":true,"parallel_tool_calls":true,
"input":[{"role":"user","content":"list the files"},
 {"type":"function_call","call_id":"call_0","name":"shell","arguments":"{\"command\":[\"pwd\"]}"},
 {"type":"function_call_output","call_id":"call_0","output":"/work"}],
"tools":[{"type":"function","name":"shell","description":"Runs a command","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}},
 {"type":"custom","name":"apply_patch","description":"Patches files","format":{"type":"grammar"}}],
"reasoning":{"effort":"medium","summary":"auto"}}`

// sseEvents reads a Responses stream as agent's own decoder does: each
// event's type and decoded form.
func sseEvents(t *testing.T, body []byte) (types []string, evs []transport.Event) {
	t.Helper()
	for _, block := range strings.Split(strings.TrimSpace(string(body)), "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		ev, err := transport.Decode(name, []byte(data))
		var failed *transport.APIError
		if errors.As(err, &failed) && name == "response.failed" {
			types = append(types, name)
			continue
		}
		if err != nil {
			t.Errorf("event %s does not decode as the Responses API's: %v\n%s", name, err, data)
			continue
		}
		types, evs = append(types, name), append(evs, ev)
	}
	return types, evs
}

// TestBridgeChat: a Responses client served by a Chat-only upstream. Its
// request becomes a Chat Completions request (the string content a user
// message, the call the assistant's tool_calls, its output a tool
// message, the freeform tool a function), sent with the provider's key and
// retried by the proxy (a 500 first); the chunks come back as the
// Responses API's events, in the order a Responses server sends them,
// each one decodable by a Responses client: reasoning, the text, the
// calls, the completion with the usage.
func TestBridgeChat(t *testing.T) {
	up := rt.NewServer(t, rt.Script{
		rt.Status(500),
		rt.Stream(rt.ChatReasoning("Look first."), rt.ChatDelta("Listing."), rt.ChatToolCall(0, "call_1", "shell", `{"command":["ls"]}`),
			rt.ChatFinish("tool_calls"), rt.ChatUsage(120, 30), rt.ChatDone()),
	})
	h := newHarness(t, up.URL, func(o *proxy.Options) {
		o.UpstreamWire = "chat"
		o.Header = map[string][]string{"Authorization": {"Bearer upstream-key"}}
	})
	resp, body, err := h.post(t, "/responses", bridgedRequest)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get(proxy.HeaderAttempts) != "2" {
		t.Fatalf("status %d attempts %q err %v:\n%s", resp.StatusCode, resp.Header.Get(proxy.HeaderAttempts), err, body)
	}
	types, evs := sseEvents(t, body)
	want := "response.created response.output_item.added response.reasoning_summary_text.delta response.output_item.added " +
		"response.output_text.delta response.output_item.done response.output_item.done response.output_item.done response.completed"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	var call transport.Item
	for _, ev := range evs {
		switch ev := ev.(type) {
		case transport.OutputItemDone:
			if ev.Item.IsCall() {
				call = ev.Item
			}
		case transport.Completed:
			if u := ev.Usage; u == nil || u.InputTokens != 120 || u.OutputTokens != 30 {
				t.Errorf("usage %+v; want 120 in, 30 out", ev.Usage)
			}
		}
	}
	if call.CallID != "call_1" || call.Name != "shell" || call.Arguments != `{"command":["ls"]}` {
		t.Errorf("the call = %+v", call)
	}
	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests; want 2", len(reqs))
	}
	q := reqs[1]
	if q.Path != "/v1/chat/completions" || q.Header.Get("Authorization") != "Bearer upstream-key" || q.JSON["model"] != "qwen3" {
		t.Errorf("upstream request %s auth %q model %v", q.Path, q.Header.Get("Authorization"), q.JSON["model"])
	}
	var chat struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  json.RawMessage `json:"tool_calls"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(q.Body, &chat); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range chat.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool" || string(chat.Messages[1].Content) != `"list the files"` ||
		!strings.Contains(string(chat.Messages[2].ToolCalls), `"call_0"`) || chat.Messages[3].ToolCallID != "call_0" {
		t.Errorf("messages %s; want the instructions, the user's text, the call and its output", q.Body)
	}
	if len(chat.Tools) != 2 || chat.Tools[1].Function.Name != "apply_patch" {
		t.Errorf("tools %s; want shell and apply_patch as functions", q.Body)
	}
}

// TestBridgeAnthropic: the same client served by a Messages upstream: the
// key goes as x-api-key, max_tokens is the model's output limit; thinking comes back as a reasoning item carrying
// the signed block, which the client's next request sends back and the
// proxy restores as the thinking block it was; an error event after the
// stream began ends it with response.failed in a code Codex knows.
func TestBridgeAnthropic(t *testing.T) {
	const sig = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
	up := rt.NewServer(t, rt.Script{
		rt.Claude(rt.ClaudeStart("msg_1", 10, 0, 0), rt.ClaudeThinking(0, "Check it.", sig), rt.ClaudeToolUse(1, "toolu_1", "shell", `{"command":["ls"]}`), rt.ClaudeEnd("tool_use", 9)),
		rt.Claude(rt.ClaudeStart("msg_2", 10, 0, 0), rt.ClaudeText(0, "FRAG")[:2], rt.ClaudeError("overloaded_error", "Overloaded")),
	})
	h := newHarness(t, up.URL, func(o *proxy.Options) {
		o.UpstreamWire = "anthropic"
		o.Header = map[string][]string{"Authorization": {"Bearer sk-ant-test"}}
		o.OutputLimit = func(model string) int64 { return map[string]int64{"qwen3": 8192}[model] }
	})
	_, body, err := h.post(t, "/responses", bridgedRequest)
	if err != nil {
		t.Fatal(err)
	}
	_, evs := sseEvents(t, body)
	var reasoning transport.Item
	for _, ev := range evs {
		if d, ok := ev.(transport.OutputItemDone); ok && d.Item.Type == "reasoning" {
			reasoning = d.Item
		}
	}
	if !strings.Contains(string(reasoning.Raw), sig) {
		t.Fatalf("no reasoning item carrying the signed block:\n%s", body)
	}
	if q := up.Requests()[0]; q.Path != "/v1/messages" || q.Header.Get("X-Api-Key") != "sk-ant-test" || q.Header.Get("Authorization") != "" {
		t.Errorf("upstream %s x-api-key %q authorization %q", q.Path, q.Header.Get("X-Api-Key"), q.Header.Get("Authorization"))
	}
	if q := up.Requests()[0]; q.JSON["max_tokens"] != 8192.0 {
		t.Errorf("max_tokens %v; want the model's output limit, 8192", q.JSON["max_tokens"])
	}

	// The client's next request carries the reasoning item back.
	var rq map[string]any
	_ = json.Unmarshal([]byte(bridgedRequest), &rq)
	var item any
	_ = json.Unmarshal(reasoning.Raw, &item)
	rq["input"] = append(rq["input"].([]any), item,
		map[string]any{"type": "function_call", "call_id": "toolu_1", "name": "shell", "arguments": `{"command":["ls"]}`},
		map[string]any{"type": "function_call_output", "call_id": "toolu_1", "output": "a.txt"})
	next, _ := json.Marshal(rq)
	_, body, _ = h.post(t, "/responses", string(next))
	if q := up.Requests()[1]; !strings.Contains(string(q.Body), `{"signature":"`+sig+`","thinking":"Check it.","type":"thinking"}`) {
		t.Errorf("the thinking block was not sent back as it came:\n%s", q.Body)
	}
	types, evs := sseEvents(t, body)
	if types[len(types)-1] != "response.failed" || !strings.Contains(string(body), `"code":"server_is_overloaded"`) {
		t.Errorf("a failed stream ends %v:\n%s", types, body)
	}
	for _, ev := range evs {
		if _, ok := ev.(transport.OutputItemDone); ok {
			t.Errorf("a failed stream delivered an item:\n%s", body)
		}
	}
}

// TestBridgeCut: a Chat stream cut before [DONE] cuts the client's
// response: it never ends cleanly, never says completed.
func TestBridgeCut(t *testing.T) {
	up := rt.NewServer(t, rt.Script{rt.Stream(rt.ChatDelta("half an "), rt.ChatDelta("answer"), rt.End())})
	h := newHarness(t, up.URL, func(o *proxy.Options) { o.UpstreamWire = "chat" })
	_, body, err := h.post(t, "/responses", bridgedRequest)
	if err == nil || strings.Contains(string(body), "response.completed") {
		t.Errorf("read error %v; want the response cut, not completed:\n%s", err, body)
	}
}

// TestBridgeRefusesUnstreamed: a request the bridge cannot serve is
// answered 400 naming why, and nothing goes upstream.
func TestBridgeRefusesUnstreamed(t *testing.T) {
	up := rt.NewServer(t, rt.Script{})
	h := newHarness(t, up.URL, func(o *proxy.Options) { o.UpstreamWire = "chat" })
	resp, body, _ := h.post(t, "/responses", `{"model":"m","input":"hi"}`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "streamed") || len(up.Requests()) != 0 {
		t.Errorf("status %d, %d upstream requests:\n%s", resp.StatusCode, len(up.Requests()), body)
	}
}
