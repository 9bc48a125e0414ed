package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
)

// anthropicConfig is a provider speaking Anthropic's Messages API.
const anthropicConfig = "model = \"claude-sonnet-4-5\"\nmodel_provider = \"claude\"\nmodel_reasoning_effort = \"medium\"\n\n" +
	"[model_providers.claude]\nname = \"Anthropic\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"anthropic\"\n"

// thinkingSignature stands for the signature the API puts on a thinking
// block: opaque, and sent back byte for byte.
const thinkingSignature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/="

// TestE2EExecAnthropicWire: agent exec against a Messages server runs the
// shell call the model streams (its input in input_json_delta fragments,
// after a signed thinking block) and answers with what it printed. Every
// request is a streamed POST /v1/messages with the key as x-api-key and
// anthropic-version, the system prompt and tools behind a cache
// breakpoint; the second sends the thinking block back unmodified before
// the tool_use, the output as a tool_result, the conversation's end as
// the next breakpoint; the usage counts the cache's reads and writes.
func TestE2EExecAnthropicWire(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{
		rt.Claude(rt.ClaudeStart("msg_1", 40, 1800, 200), rt.ClaudeThinking(0, "I should run it.", thinkingSignature),
			rt.ClaudeText(1, "Running it."), rt.ClaudeToolUse(2, "toolu_01A", "exec_command", `{"cmd": "echo `, `anthropic-wire-ok", "yield_time_ms": 60000}`),
			rt.ClaudeEnd("tool_use", 30)),
		rt.Claude(rt.ClaudeStart("msg_2", 60, 2000, 90), rt.ClaudeText(0, "It printed ", "anthropic-wire-ok."), rt.ClaudeEnd("end_turn", 8)),
	})
	r := runCLI(t, srv, runOpts{config: anthropicConfig}, "exec", "--json", "--sandbox", "danger-full-access", "run echo")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var answer string
	var usage map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
			Use  map[string]any `json:"usage"`
		}
		_ = json.Unmarshal([]byte(line), &ev)
		switch {
		case ev.Type == "item.completed" && ev.Item["type"] == "agent_message":
			answer, _ = ev.Item["text"].(string)
		case ev.Type == "turn.completed":
			usage = ev.Use
		}
	}
	if answer != "It printed anthropic-wire-ok." {
		t.Errorf("answer %q; stdout:\n%s", answer, r.stdout)
	}
	// input_tokens counts the cache's tokens in, as OpenAI counts them.
	want := map[string]any{"input_tokens": 40.0 + 1800 + 200 + 60 + 2000 + 90, "cached_input_tokens": 3800.0,
		"cache_write_input_tokens": 290.0, "output_tokens": 38.0, "reasoning_output_tokens": 0.0,
		// Priced at the catalogue's claude-sonnet-4-5: 100 uncached at $3, 3800
		// cache reads at $0.30, 290 cache writes at $3.75, 38 out at $15 per million.
		"cost_usd": (100*3 + 3800*0.3 + 290*3.75 + 38*15) / 1e6}
	if diff := cmp.Diff(want, usage, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("turn.completed usage (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	for _, q := range reqs {
		checkMessagesRequest(t, q)
	}
	checkSentBack(t, reqs[1].Body)
}

// checkMessagesRequest checks q is a streamed Messages request: the key
// as x-api-key, the version, the system prompt behind a breakpoint, the
// tools with input schemas, thinking on.
func checkMessagesRequest(t *testing.T, q rt.Request) {
	t.Helper()
	if q.Path != "/v1/messages" || q.Header.Get("X-Api-Key") != fakeKey || q.Header.Get("Authorization") != "" ||
		q.Header.Get("Anthropic-Version") != "2023-06-01" || q.JSON["stream"] != true {
		t.Errorf("request %s x-api-key %q authorization %q anthropic-version %q stream %v; want a streamed POST /v1/messages with the key as x-api-key",
			q.Path, q.Header.Get("X-Api-Key"), q.Header.Get("Authorization"), q.Header.Get("Anthropic-Version"), q.JSON["stream"])
	}
	if q.JSON["max_tokens"] == nil || q.JSON["model"] != "claude-sonnet-4-5" {
		t.Errorf("request model %v max_tokens %v", q.JSON["model"], q.JSON["max_tokens"])
	}
	if th, _ := q.JSON["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] == nil {
		t.Errorf("thinking = %v; want enabled with a budget for reasoning effort medium", q.JSON["thinking"])
	}
	sys, _ := q.JSON["system"].([]any)
	if len(sys) != 1 || sys[0].(map[string]any)["cache_control"] == nil || sys[0].(map[string]any)["text"] == "" {
		t.Errorf("system = %v; want the instructions as one block with a cache breakpoint", q.JSON["system"])
	}
	var tools []string
	for _, tl := range q.JSON["tools"].([]any) {
		f := tl.(map[string]any)
		if f["input_schema"] == nil {
			t.Errorf("tool %v has no input_schema", f["name"])
		}
		tools = append(tools, f["name"].(string))
	}
	if names := strings.Join(tools, " "); !strings.Contains(names, "exec_command") || !strings.Contains(names, "apply_patch") {
		t.Errorf("tools = %v; want exec_command and apply_patch", tools)
	}
	if _, ok := q.JSON["input"]; ok {
		t.Errorf("a Messages request carries Responses input: %s", q.Body)
	}
}

// checkSentBack checks the second request of TestE2EExecAnthropicWire
// sends the assistant's turn back as the API requires.
func checkSentBack(t *testing.T, raw []byte) {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	msgs := body.Messages
	if len(msgs) < 3 || msgs[0].Role != "user" {
		t.Fatalf("messages = %s; want user, assistant, user", raw)
	}
	asst, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
	blocks := []string{}
	for _, c := range asst.Content {
		blocks = append(blocks, string(c))
	}
	wantAsst := []string{
		`{"signature":"` + thinkingSignature + `","thinking":"I should run it.","type":"thinking"}`,
		`{"text":"Running it.","type":"text"}`,
		`{"id":"toolu_01A","input":{"cmd":"echo anthropic-wire-ok","yield_time_ms":60000},"name":"exec_command","type":"tool_use"}`,
	}
	if asst.Role != "assistant" || !cmp.Equal(blocks, wantAsst) {
		t.Errorf("assistant message %s\nwant the thinking block as sent, the text, the tool_use:\n%s", blocks, strings.Join(wantAsst, "\n"))
	}
	var tr struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		Content   string          `json:"content"`
		Cache     json.RawMessage `json:"cache_control"`
	}
	if result.Role != "user" || len(result.Content) != 1 || json.Unmarshal(result.Content[0], &tr) != nil ||
		tr.Type != "tool_result" || tr.ToolUseID != "toolu_01A" || !strings.Contains(tr.Content, "anthropic-wire-ok") || string(tr.Cache) != `{"type":"ephemeral"}` {
		t.Errorf("last message %s %s; want the tool_result of toolu_01A with the output and the cache breakpoint", result.Role, result.Content)
	}
}

// TestExecAnthropicWireFaults: the fault scenarios hold on the Messages
// wire through the one retry engine: a 500 then the answer, 529
// overloaded (the overload schedule), a stream cut mid-answer, an error
// event mid-stream, a stream without message_stop, a 429 with
// retry-after, and one whose wait only the anthropic-ratelimit reset
// headers give. The answer is printed once, each retry waited and said.
func TestExecAnthropicWireFaults(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(90 * time.Second).UTC().Format(time.RFC3339)
	overloadFirst := provider.DefaultRetry()[provider.ClassOverloaded].BaseDelay
	tests := []struct {
		name   string
		first  rt.Attempt
		notice string
		check  func(t *testing.T, sleeps []time.Duration)
	}{
		{"500 then ok", rt.StatusBody(500, rt.ClaudeErrorBody("api_error", "Internal server error")), "Internal server error", waits(200 * ms)},
		{"529 overloaded", rt.StatusBody(529, rt.ClaudeErrorBody("overloaded_error", "Overloaded")), "Overloaded", func(t *testing.T, s []time.Duration) {
			if len(s) != 1 || s[0] < overloadFirst || s[0] > 2*overloadFirst {
				t.Errorf("waits %v; want one wait on the overload schedule (%s to %s)", s, overloadFirst, 2*overloadFirst)
			}
		}},
		{"cut mid-stream", rt.Claude(rt.ClaudeStart("m", 5, 0, 0), rt.ClaudeText(0, "FRAGMENT ")[:2], rt.Drop()), "Reconnecting... 1/5", waits(200 * ms)},
		{"error event mid-stream", rt.Claude(rt.ClaudeStart("m", 5, 0, 0), rt.ClaudeText(0, "FRAGMENT ")[:2], rt.ClaudeError("overloaded_error", "Overloaded")), "Overloaded", func(t *testing.T, s []time.Duration) {
			if len(s) != 1 || s[0] < overloadFirst {
				t.Errorf("waits %v; want one wait on the overload schedule", s)
			}
		}},
		{"no message_stop", rt.Claude(rt.ClaudeStart("m", 5, 0, 0), rt.ClaudeText(0, "FRAGMENT"), rt.End()), "stream closed before message_stop", waits(200 * ms)},
		{"429 with retry-after", rt.StatusBody(429, rt.ClaudeErrorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
			"retry-after", "3", "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset", reset), "rate limit", waits(3 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{tt.first, rt.ClaudeReply("the good answer")})
			r := runCLI(t, srv, runOpts{config: anthropicConfig}, "exec", "hi")
			if r.code != 0 || r.stdout != "the good answer\n" {
				t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "FRAGMENT") {
				t.Errorf("a failed try's fragment was shown:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, tt.notice) {
				t.Errorf("stderr lacks %q:\n%s", tt.notice, r.stderr)
			}
			tt.check(t, r.sleeps)
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests; want 2", n)
			}
		})
	}
}

// waits checks the retry waits were exactly want.
func waits(want ...time.Duration) func(*testing.T, []time.Duration) {
	return func(t *testing.T, got []time.Duration) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	}
}

// TestAnthropicRateLimitResetHeaders: a 429 without retry-after waits
// until the anthropic-ratelimit reset of the limit it spent; a 400 saying
// the prompt is too long is a full context window, not retried.
func TestAnthropicRateLimitResetHeaders(t *testing.T) {
	t.Parallel()
	// The reset is 30 s away: a loaded machine can take seconds to reach
	// the request, and the wait is recorded, not slept.
	reset := time.Now().Add(30 * time.Second).UTC().Format(time.RFC3339)
	srv := rt.NewServer(t, rt.Script{
		rt.StatusBody(429, rt.ClaudeErrorBody("rate_limit_error", "rate limited"),
			"anthropic-ratelimit-requests-remaining", "12", "anthropic-ratelimit-requests-reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"anthropic-ratelimit-input-tokens-remaining", "0", "anthropic-ratelimit-input-tokens-reset", reset),
		rt.ClaudeReply("the good answer"),
	})
	r := runCLI(t, srv, runOpts{config: anthropicConfig}, "exec", "hi")
	if r.code != 0 || r.stdout != "the good answer\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if len(r.sleeps) != 1 || r.sleeps[0] < 15*time.Second || r.sleeps[0] > 31*time.Second {
		t.Errorf("waits %v; want one wait until the input-tokens reset (~30s), not the requests reset an hour away", r.sleeps)
	}

	srv = rt.NewServer(t, rt.Script{rt.StatusBody(400, rt.ClaudeErrorBody("invalid_request_error", "prompt is too long: 208432 tokens > 200000 maximum"))})
	r = runCLI(t, srv, runOpts{config: anthropicConfig}, "exec", "hi")
	if r.code == 0 || len(srv.Requests()) != 1 || !strings.Contains(r.stderr, "context window is full") {
		t.Errorf("prompt too long: exit %d, %d requests; want one request, the full context window said:\n%s", r.code, len(srv.Requests()), r.stderr)
	}
}

// TestAnthropicWireSecrets: a server that echoes the key back in its
// error (as a misconfigured gateway does) never gets it printed.
func TestAnthropicWireSecrets(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.StatusBody(401, rt.ClaudeErrorBody("authentication_error", "invalid x-api-key: "+fakeKey))})
	r := runCLI(t, srv, runOpts{config: anthropicConfig}, "exec", "hi")
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, fakeKey) || !strings.Contains(r.stderr, "invalid x-api-key") {
		t.Errorf("exit %d; want a failure naming the refusal with the key masked:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFailoverToAnthropic: a Responses provider that runs a shell call and
// then stays at capacity hands the turn to a Messages fallback, which gets
// the same history as content blocks (the call a tool_use, its output a
// tool_result), the other provider's reasoning left out, and thinking off
// for that tool loop (the API wants its own thinking block before it).
func TestFailoverToAnthropic(t *testing.T) {
	t.Parallel()
	args, _ := json.Marshal(map[string]string{"cmd": "true"})
	first := rt.Script{rt.Stream(rt.Created("ra"), rt.FunctionCallDone("fc1", "call_x", "exec_command", string(args)), rt.Completed("ra"))}
	for range 1 + provider.DefaultRetry()[provider.ClassOverloaded].MaxRetries {
		first = append(first, atCapacity())
	}
	primary := rt.NewServer(t, first)
	backup := rt.NewServer(t, rt.Script{rt.ClaudeReply("answer from the Claude backup")})
	config := "model = \"m-primary\"\nmodel_provider = \"primary\"\nmodel_reasoning_effort = \"medium\"\n" +
		"fallback = [{ provider = \"backup\", model = \"claude-haiku-4-5\" }]\n" +
		"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"anthropic\"\n"
	r := runCLI(t, nil, runOpts{config: config}, "exec", "--sandbox", "danger-full-access", "run it")
	if r.code != 0 || r.stdout != "answer from the Claude backup\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := backup.Requests()
	if len(b) != 1 || !strings.HasSuffix(b[0].Path, "/messages") || b[0].JSON["model"] != "claude-haiku-4-5" {
		t.Fatalf("backup requests %d (%v); want one Messages request for claude-haiku-4-5", len(b), b)
	}
	body := string(b[0].Body)
	if !strings.Contains(body, `"type":"tool_use"`) || !strings.Contains(body, `"id":"call_x"`) ||
		!strings.Contains(body, `"tool_use_id":"call_x"`) || !strings.Contains(body, `"text":"run it"`) {
		t.Errorf("the Claude backup's history lacks the prompt, the call or its output:\n%s", body)
	}
	// The tool loop the backup goes on has no thinking block of its own,
	// which the API requires with thinking on: this request has none.
	if th := b[0].JSON["thinking"]; th != nil {
		t.Errorf("thinking = %v; want off for a tool loop another provider ran", th)
	}
}

// TestAnthropicMaxTokensFromCatalogue: max_tokens, which the Messages API
// requires, is the model's output limit in the catalogue: config's
// [models."NAME"] limit.output over the built-in snapshot's, the
// snapshot's for a model it lists, 32000 for a model nobody knows; the
// thinking budget stays under it (and thinking is left off when the
// limit leaves no room for the API's least budget of 1024 tokens).
func TestAnthropicMaxTokensFromCatalogue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		model, models string
		want          float64
		thinking      bool
	}{
		{"claude-sonnet-4-5", "[models.\"claude-sonnet-4-5\"]\nlimit = { output = 8192 }\n", 8192, true},
		{"claude-haiku-4-5", "", 64000, true},
		{"claude-opus-4-1-20250805", "", 32000, true},
		{"gateway-llm", "", 32000, true},
		{"small-llm", "[models.\"small-llm\"]\nlimit = { context = 16000, output = 1500 }\n", 1500, false},
	} {
		srv := rt.NewServer(t, rt.Script{rt.ClaudeReply("ok")})
		config := strings.Replace(anthropicConfig, "claude-sonnet-4-5", tt.model, 1) + tt.models
		r := runCLI(t, srv, runOpts{config: config}, "exec", "hi")
		if r.code != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("%s: exit %d; stderr:\n%s", tt.model, r.code, r.stderr)
		}
		q := srv.Requests()[0].JSON
		th, _ := q["thinking"].(map[string]any)
		budget, _ := th["budget_tokens"].(float64)
		if q["max_tokens"] != tt.want || (th != nil) != tt.thinking || (th != nil && (budget < 1024 || budget >= tt.want)) {
			t.Errorf("%s: max_tokens %v thinking %v; want max_tokens %v, thinking %v within it", tt.model, q["max_tokens"], q["thinking"], tt.want, tt.thinking)
		}
	}
}

// TestFailoverFromAnthropicBack: the chain crosses wires the other way. A
// Messages provider that thinks (a signed thinking block) and runs a
// shell call, then stays overloaded (529), hands the turn to a Responses
// fallback, which gets the same history as Responses items (the call a
// function_call, its output a function_call_output, the prompt a user
// message) and never the Anthropic thinking block, which no other API
// can read; the next run starts on the fallback while the Messages
// provider is in its cooldown.
func TestFailoverFromAnthropicBack(t *testing.T) {
	t.Parallel()
	first := rt.Script{rt.Claude(rt.ClaudeStart("msg_1", 40, 0, 0), rt.ClaudeThinking(0, "I should run it.", thinkingSignature),
		rt.ClaudeToolUse(1, "toolu_x", "exec_command", `{"cmd": "true"}`), rt.ClaudeEnd("tool_use", 20))}
	for range 1 + provider.DefaultRetry()[provider.ClassOverloaded].MaxRetries {
		first = append(first, rt.StatusBody(529, rt.ClaudeErrorBody("overloaded_error", "Overloaded")))
	}
	primary := rt.NewServer(t, first)
	backup := rt.NewServer(t, rt.Script{rt.Reply("rb1", "mb1", "answer from the Responses backup"), rt.Reply("rb2", "mb2", "second run on the backup")})
	home := t.TempDir()
	config := "model = \"claude-sonnet-4-5\"\nmodel_provider = \"claude\"\nmodel_reasoning_effort = \"medium\"\n" +
		"fallback = [{ provider = \"backup\", model = \"m-backup\" }]\n" +
		"[model_providers.claude]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"anthropic\"\n" +
		"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
	r := runCLI(t, nil, runOpts{config: config, home: home}, "exec", "--sandbox", "danger-full-access", "run it")
	if r.code != 0 || r.stdout != "answer from the Responses backup\n" || !strings.Contains(r.stderr, "Switching to backup/m-backup") {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := backup.Requests()
	if len(b) != 1 || !strings.HasSuffix(b[0].Path, "/responses") || b[0].JSON["model"] != "m-backup" {
		t.Fatalf("backup requests %d; want one Responses request for m-backup", len(b))
	}
	body := string(b[0].Body)
	if strings.Contains(body, thinkingSignature) || strings.Contains(body, `"type":"reasoning"`) || strings.Contains(body, `"messages"`) {
		t.Errorf("the Responses backup got the Anthropic thinking block or a Messages body:\n%s", body)
	}
	var types []string
	for _, it := range b[0].JSON["input"].([]any) {
		m := it.(map[string]any)
		types = append(types, fmt.Sprint(m["type"], ":", m["call_id"]))
	}
	if got := strings.Join(types, " "); !strings.Contains(got, "function_call:toolu_x function_call_output:toolu_x") || !strings.Contains(body, "run it") {
		t.Errorf("the backup's input %s; want the prompt, the call and its output as Responses items:\n%s", got, body)
	}

	sent := len(primary.Requests())
	r = runCLI(t, nil, runOpts{config: config, home: home}, "exec", "again")
	if r.code != 0 || r.stdout != "second run on the backup\n" || len(primary.Requests()) != sent || !strings.Contains(r.stderr, "claude failed recently") {
		t.Errorf("second run: exit %d, stdout %q, %d new primary requests (want none: it is cooling down); stderr:\n%s", r.code, r.stdout, len(primary.Requests())-sent, r.stderr)
	}
}
