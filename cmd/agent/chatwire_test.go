package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
)

// chatConfig is a provider speaking Chat Completions.
const chatConfig = "model = \"qwen3\"\nmodel_provider = \"local\"\n\n[model_providers.local]\nname = \"Local\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"chat\"\n"

// TestE2EExecChatWire: agent exec against a Chat Completions server runs
// the shell call the model streams and answers with what it printed:
// every request a streamed POST /v1/chat/completions, the second carrying
// the call as the assistant's tool_calls and its output as a tool message.
func TestE2EExecChatWire(t *testing.T) {
	t.Parallel()
	// Wait for the command to end (a loaded machine can take longer than
	// the default 10 s yield to start a shell).
	args, _ := json.Marshal(map[string]any{"cmd": "echo chat-wire-ok", "yield_time_ms": 120000})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.ChatReasoning("I should run it."), rt.ChatToolCall(0, "call_1", "exec_command", string(args)),
			rt.ChatFinish("tool_calls"), rt.ChatUsage(100, 20), rt.ChatDone()),
		rt.ChatReply("It printed chat-wire-ok."),
	})
	r := runCLI(t, srv, runOpts{config: chatConfig}, "exec", "--sandbox", "danger-full-access", "run echo")
	if r.code != 0 || r.stdout != "It printed chat-wire-ok.\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "echo chat-wire-ok") {
		t.Errorf("stderr does not show the command:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	for _, q := range reqs {
		if q.Path != "/v1/chat/completions" || q.Header.Get("Authorization") != "Bearer "+fakeKey || q.JSON["stream"] != true {
			t.Errorf("request %s %v stream=%v; want a streamed POST /v1/chat/completions with the key", q.Path, q.Header.Get("Authorization"), q.JSON["stream"])
		}
		if _, ok := q.JSON["input"]; ok {
			t.Errorf("a chat request carries Responses input: %s", q.Body)
		}
	}
	var tools []string
	for _, tl := range reqs[0].JSON["tools"].([]any) {
		f := tl.(map[string]any)
		tools = append(tools, f["type"].(string)+":"+f["function"].(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(tools, " "), "function:exec_command") || !strings.Contains(strings.Join(tools, " "), "function:apply_patch") {
		t.Errorf("tools = %v; want exec_command and apply_patch as functions", tools)
	}
	msgs := reqs[1].JSON["messages"].([]any)
	last2 := msgs[len(msgs)-2:]
	asst, tool := last2[0].(map[string]any), last2[1].(map[string]any)
	calls, _ := asst["tool_calls"].([]any)
	if asst["role"] != "assistant" || len(calls) != 1 || calls[0].(map[string]any)["id"] != "call_1" {
		t.Errorf("assistant message = %v; want the call", asst)
	}
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_1" || !strings.Contains(tool["content"].(string), "chat-wire-ok") {
		t.Errorf("tool message = %v; want the command's output for call_1", tool)
	}
	if first := msgs[0].(map[string]any); first["role"] != "system" {
		t.Errorf("first message = %v; want the instructions as the system message", first)
	}
}

// TestExecChatWireReasoningAndUsage: agent exec --json on the chat wire
// shows the reasoning_content DeepSeek, vLLM and llama.cpp stream as a
// reasoning item, and takes the turn's usage from the last chunk
// (stream_options.include_usage), cached tokens included.
func TestExecChatWireReasoningAndUsage(t *testing.T) {
	t.Parallel()
	usage := rt.EventData(`{"id":"chatcmpl-test","object":"chat.completion.chunk","choices":[],` +
		`"usage":{"prompt_tokens":310,"completion_tokens":42,"total_tokens":352,"prompt_tokens_details":{"cached_tokens":256}}}`)
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.ChatReasoning("The user wants"), rt.ChatReasoning(" a greeting."),
		rt.ChatDelta("Hello."), rt.ChatFinish("stop"), usage, rt.ChatDone())})
	r := runCLI(t, srv, runOpts{config: chatConfig}, "exec", "--json", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var reasoning, answer string
	var use map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type  string         `json:"type"`
			Item  map[string]any `json:"item"`
			Usage map[string]any `json:"usage"`
		}
		_ = json.Unmarshal([]byte(line), &ev)
		switch {
		case ev.Type == "item.completed" && ev.Item["type"] == "reasoning":
			reasoning, _ = ev.Item["text"].(string)
		case ev.Type == "item.completed" && ev.Item["type"] == "agent_message":
			answer, _ = ev.Item["text"].(string)
		case ev.Type == "turn.completed":
			use = ev.Usage
		}
	}
	if !strings.Contains(reasoning, "The user wants a greeting.") || answer != "Hello." {
		t.Errorf("reasoning %q, answer %q; stdout:\n%s", reasoning, answer, r.stdout)
	}
	if use["input_tokens"] != 310.0 || use["cached_input_tokens"] != 256.0 || use["output_tokens"] != 42.0 {
		t.Errorf("turn.completed usage %v; want the last chunk's 310 in (256 cached), 42 out", use)
	}
}

// TestExecChatWireFaults: the fault scenarios of the Responses API hold
// on the chat wire, through the same retry engine: a 500 then the answer,
// a stream cut mid-answer, a stream that ends without [DONE] or a
// finish_reason; the answer is printed once, each retry waited and said.
func TestExecChatWireFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		first  rt.Attempt
		sleeps []time.Duration
		notice string
	}{
		{"500 then ok", rt.Status(500), []time.Duration{200 * ms}, "500"},
		{"cut mid-stream", rt.Stream(rt.ChatDelta("FRAGMENT "), rt.ChatDelta("of a failed try"), rt.Drop()), []time.Duration{200 * ms}, "Reconnecting... 1/5"},
		{"no [DONE]", rt.Stream(rt.ChatDelta("FRAGMENT"), rt.End()), []time.Duration{200 * ms}, "stream closed before [DONE]"},
		{"429 with Retry-After", rt.StatusBody(429, `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min.","metadata":{}}}`, "Retry-After", "2"), []time.Duration{2 * time.Second}, "Rate limit exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{tt.first, rt.ChatReply("the good answer")})
			r := runCLI(t, srv, runOpts{config: chatConfig}, "exec", "hi")
			if r.code != 0 || r.stdout != "the good answer\n" {
				t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "FRAGMENT") {
				t.Errorf("a failed try's fragment was shown:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, tt.notice) {
				t.Errorf("stderr lacks %q:\n%s", tt.notice, r.stderr)
			}
			if diff := cmp.Diff(tt.sleeps, r.sleeps); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests; want 2", n)
			}
		})
	}
}

// TestExecChatWireFinishReasons: finish_reason length keeps the answer
// with the cut-short warning; content_filter ends the turn at once, not
// retried, with the same advice as on the Responses API.
func TestExecChatWireFinishReasons(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.ChatDelta("a partial answer"), rt.ChatFinish("length"), rt.ChatUsage(5, 5), rt.ChatDone())})
	r := runCLI(t, srv, runOpts{config: chatConfig}, "exec", "hi")
	if r.code != 0 || r.stdout != "a partial answer\n" || !strings.Contains(r.stderr, "the answer was cut short") {
		t.Errorf("length: exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}

	srv = rt.NewServer(t, rt.Script{rt.Stream(rt.ChatDelta("I"), rt.ChatFinish("content_filter"), rt.ChatDone())})
	r = runCLI(t, srv, runOpts{config: chatConfig}, "exec", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "content filter") || len(srv.Requests()) != 1 {
		t.Errorf("content_filter: exit %d, %d requests; stderr:\n%s", r.code, len(srv.Requests()), r.stderr)
	}
}

// TestFailoverCrossesWires: a Responses provider that runs a shell call
// and then stays at capacity hands the turn to a Chat Completions
// fallback, which gets the same history as chat messages (the call as the
// assistant's tool_calls, its output a tool message) and answers.
func TestFailoverCrossesWires(t *testing.T) {
	t.Parallel()
	args, _ := json.Marshal(map[string]string{"cmd": "true"})
	first := rt.Script{rt.Stream(rt.Created("ra"), rt.FunctionCallDone("fc1", "call_x", "exec_command", string(args)), rt.Completed("ra"))}
	for range 1 + provider.DefaultRetry()[provider.ClassOverloaded].MaxRetries {
		first = append(first, atCapacity())
	}
	primary := rt.NewServer(t, first)
	backup := rt.NewServer(t, rt.Script{rt.ChatReply("answer from the chat backup")})
	config := "model = \"m-primary\"\nmodel_provider = \"primary\"\n" +
		"fallback = [{ provider = \"backup\", model = \"m-backup\" }]\n" +
		"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"chat\"\n"
	r := runCLI(t, nil, runOpts{config: config}, "exec", "--sandbox", "danger-full-access", "run it")
	if r.code != 0 || r.stdout != "answer from the chat backup\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := backup.Requests()
	if len(b) != 1 || !strings.HasSuffix(b[0].Path, "/chat/completions") || b[0].JSON["model"] != "m-backup" {
		t.Fatalf("backup requests %d (%v); want one chat request for m-backup", len(b), b)
	}
	msgs := b[0].JSON["messages"].([]any)
	var sawCall, sawOutput, sawPrompt bool
	for _, m := range msgs {
		m := m.(map[string]any)
		switch m["role"] {
		case "user":
			sawPrompt = sawPrompt || m["content"] == "run it"
		case "assistant":
			calls, _ := m["tool_calls"].([]any)
			sawCall = sawCall || (len(calls) == 1 && calls[0].(map[string]any)["id"] == "call_x")
		case "tool":
			_, text := m["content"].(string)
			sawOutput = sawOutput || (m["tool_call_id"] == "call_x" && text)
		}
	}
	if !sawPrompt || !sawCall || !sawOutput {
		t.Errorf("the chat backup's history: prompt %v, call %v, output %v; want all:\n%s", sawPrompt, sawCall, sawOutput, b[0].Body)
	}
}
