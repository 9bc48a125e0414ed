package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
)

// The rows of issue 30: the Responses API's failure vocabulary, as the
// spec and the servers users run send it.

// errorEventRows are the error event in each of its forms.
func errorEventRows() []faultRow {
	ok := "answer\n"
	ms := time.Millisecond
	one := func(st rt.Step) func() rt.Script {
		return func() rt.Script { return rt.Script{rt.Stream(rt.Created("r"), st)} }
	}
	return []faultRow{
		{group: "error event", name: "the spec's form (code at the top level): context_length_exceeded", script: one(rt.ErrorEvent("context_length_exceeded", "too long", "input")),
			requests: 1, exit: exitcode.Failed, stderr: "context window is full"},
		{group: "error event", name: "the spec's form: invalid_prompt, not re-sent, the server's message and advice", script: one(rt.ErrorEvent("invalid_prompt", "nope", "")),
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: nope: the provider's usage policy refused the request"},
		{group: "error event", name: "the nested form without a status: insufficient_quota", script: one(rt.Event("error", map[string]any{"error": map[string]any{"code": "insufficient_quota", "message": "no credit"}})),
			requests: 1, exit: exitcode.Quota, stderr: "quota exceeded: check your plan and billing: no credit"},
		{group: "error event", name: "LiteLLM's bare data {\"error\":...} without a type: invalid_prompt", script: one(rt.BareError("invalid_request_error", "invalid_prompt", "blocked upstream")),
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: blocked upstream"},
		{group: "error event", name: "LiteLLM's bare error with server_error: retried", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAG"), rt.BareError("server_error", "server_error", "upstream 500")), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "(upstream 500)"},
	}
}

// reproducedRows are failures the same input reproduces: never re-sent.
func reproducedRows() []faultRow {
	return []faultRow{
		{group: "what the same input reproduces", name: "response.failed invalid_image", script: func() rt.Script { return rt.Script{failed("invalid_image", "Invalid image.")} },
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: Invalid image.: an attached image was refused"},
		{group: "what the same input reproduces", name: "response.failed image_too_large", script: func() rt.Script { return rt.Script{failed("image_too_large", "too big")} },
			requests: 1, exit: exitcode.Failed, stderr: "an attached image was refused"},
		{group: "what the same input reproduces", name: "response.failed failed_to_download_image", script: func() rt.Script { return rt.Script{failed("failed_to_download_image", "404 on the URL")} },
			requests: 1, exit: exitcode.Failed, stderr: "an image URL could not be fetched"},
		{group: "what the same input reproduces", name: "response.failed data_residency_mismatch", script: func() rt.Script { return rt.Script{failed("data_residency_mismatch", "region")} },
			requests: 1, exit: exitcode.Failed, stderr: "data residency"},
		{group: "what the same input reproduces", name: "HTTP 400 with an image code", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Error(400, "invalid_request_error", "invalid_base64_image", "Invalid base64 image.")}
		}, requests: 1, exit: exitcode.Failed, stderr: "Invalid base64 image.: an attached image was refused"},
		{group: "what the same input reproduces", name: "response.incomplete by content_filter", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Incomplete("r", "content_filter"))}
		}, requests: 1, exit: exitcode.Failed, stderr: "the provider's content filter stopped the response"},
		{group: "what the same input reproduces", name: "max_output_tokens after a partial answer: the partial is the answer, said to be cut", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "partial"), rt.OutputItemDone(rt.MessageItem("m", "partial", "incomplete")), rt.Incomplete("r", "max_output_tokens"))}
		}, requests: 1, stdout: "partial\n", stderr: "warning: the answer was cut short"},
		{group: "what the same input reproduces", name: "max_output_tokens before any answer", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Incomplete("r", "max_output_tokens"))}
		}, requests: 1, exit: exitcode.Failed, stderr: "reached the server's output token limit before it answered"},
		{group: "what the same input reproduces", name: "vLLM's cut: response.completed with status incomplete", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.OutputItemDone(rt.MessageItem("m", "partial", "incomplete")), rt.Event("response.completed", map[string]any{
				"response": map[string]any{"id": "r", "status": "incomplete", "incomplete_details": map[string]any{"reason": "max_output_tokens"}}}))}
		}, requests: 1, stdout: "partial\n", stderr: "warning: the answer was cut short"},
		{group: "what the same input reproduces", name: "a refusal is the answer: on stdout, exit 7", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.RefusalDelta("m", "I can't help "), rt.RefusalDelta("m", "with that."), rt.RefusalDone("m", "I can't help with that."), rt.Completed("r"))}
		}, requests: 1, exit: exitcode.Refused, stdout: "I can't help with that.\n", stderr: "the model refused to answer"},
	}
}

// countIn counts s in request i's body.
func countIn(t *testing.T, reqs []rt.Request, i int, s string) int {
	t.Helper()
	if i >= len(reqs) {
		t.Fatalf("no request %d", i+1)
	}
	return strings.Count(string(reqs[i].Body), s)
}

// gatewayRows are what LiteLLM, Ollama and vLLM send.
func gatewayRows() []faultRow {
	ok := "answer\n"
	ms := time.Millisecond
	call := rt.FunctionCallItem("fc1", "c1", "no_such_tool", "{}")
	return []faultRow{
		{group: "gateways and local servers", name: "LiteLLM: a function call only in response.completed runs once", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.CompletedOutput("r", call)), reply()}
		}, requests: 2, stdout: ok, check: func(t *testing.T, reqs []rt.Request) {
			if n, m := countIn(t, reqs, 1, `"type":"function_call"`), countIn(t, reqs, 1, `"type":"function_call_output"`); n != 1 || m != 1 {
				t.Errorf("the follow-up carries %d calls and %d outputs; want 1 and 1", n, m)
			}
		}},
		{group: "gateways and local servers", name: "LiteLLM: text as bare deltas, the message only in response.completed", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "answer"), rt.CompletedOutput("r", rt.MessageItem("m", "answer", "completed")))}
		}, requests: 1, stdout: ok},
		{group: "gateways and local servers", name: "items streamed and listed again in response.completed: run and shown once", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.OutputItemDone(call), rt.CompletedOutput("r", call)), rt.Stream(rt.Created("r2"), rt.MessageDone("m", "answer"), rt.CompletedOutput("r2", rt.MessageItem("m", "answer", "completed")))}
		}, requests: 2, stdout: ok, check: func(t *testing.T, reqs []rt.Request) {
			if n := countIn(t, reqs, 1, `"type":"function_call_output"`); n != 1 {
				t.Errorf("the follow-up carries %d outputs; want 1", n)
			}
		}},
		{group: "gateways and local servers", name: "an empty assistant message before a tool call is dropped", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.OutputItemDone(rt.MessageItem("m0", "", "completed")), rt.OutputItemDone(call), rt.Completed("r")), reply()}
		}, requests: 2, stdout: ok, check: func(t *testing.T, reqs []rt.Request) {
			if n := countIn(t, reqs, 1, `"m0"`) + countIn(t, reqs, 1, `"text":""`); n != 0 {
				t.Errorf("the follow-up carries the empty message")
			}
		}},
		{group: "gateways and local servers", name: "Ollama before 0.13.3: 404 page not found as text", only: "sse", script: func() rt.Script {
			return rt.Script{rt.StatusBody(404, "404 page not found", "Content-Type", "text/plain")}
		}, requests: 1, exit: exitcode.Failed, stderr: "this server does not serve the Responses API at base_url (Ollama serves it from 0.13.3"},
		{group: "gateways and local servers", name: "vLLM's older error shape: its message", only: "sse", script: func() rt.Script {
			return rt.Script{rt.StatusBody(400, "{\n  \"object\": \"error\",\n  \"message\": \"max_tokens must be at least 1\",\n  \"type\": \"BadRequestError\",\n  \"param\": null,\n  \"code\": 400\n}")}
		}, requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: max_tokens must be at least 1\n"},
		{group: "gateways and local servers", name: "an HTML error page: the retry notice quotes its title", only: "sse", script: func() rt.Script {
			page := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n"
			return rt.Script{rt.StatusBody(502, page, "Content-Type", "text/html"), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "Retrying request... 1/4 in 0.2s (502 Bad Gateway)\n"},
		{group: "gateways and local servers", name: "a retry after a broken stream carries nothing of the failed attempt, reasoning included", script: func() rt.Script {
			reasoning := rt.OutputItemDone(map[string]any{"type": "reasoning", "id": "rs_FAILED", "summary": []any{}, "encrypted_content": "enc"})
			return rt.Script{rt.Stream(rt.Created("r"), reasoning, rt.MessageDone("m_FAILED", "first"), rt.Drop()), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, check: func(t *testing.T, reqs []rt.Request) {
			if n := countIn(t, reqs, 1, "_FAILED"); n != 0 {
				t.Errorf("the retry carries %d items of the failed attempt", n)
			}
		}},
	}
}

// eventShapeRows are events whose fields are typed otherwise than agent
// reads them, and end_turn.
func eventShapeRows() []faultRow {
	ok := "answer\n"
	ms := time.Millisecond
	return []faultRow{
		{group: "event shapes", name: "response.completed with a top-level string status", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", "answer"), rt.Event("response.completed", map[string]any{"status": "completed", "response": map[string]any{"id": "r"}}))}
		}, requests: 1, stdout: ok},
		{group: "event shapes", name: "an object delta on a known event", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Event("response.output_text.delta", map[string]any{"item_id": "m", "delta": map[string]any{"text": "x"}}), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok},
		{group: "event shapes", name: "a response.completed too broken to read a type from is an error, not skipped", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", "first"), rt.EventData(`{"type":"response.completed","response":{"id":"r"`)), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "event shapes", name: "end_turn false: the turn goes on, as the reference client does", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m1", "part one"), rt.Event("response.completed", map[string]any{"response": map[string]any{"id": "r", "end_turn": false}})), reply()}
		}, requests: 2, stdout: ok, check: func(t *testing.T, reqs []rt.Request) {
			if n := countIn(t, reqs, 1, "part one"); n > 1 {
				t.Errorf("the follow-up carries the first part %d times; want once (over HTTPS) or as the previous response (WebSocket)", n)
			}
		}},
	}
}

// writeCodeTable documents the classifier's one table of error codes.
func writeCodeTable(b *strings.Builder) {
	b.WriteString("\n## Error codes\n\n")
	b.WriteString("The classifier's one table (`modelclient.CodeRules`): a code means the same in an HTTP error body, an `error`\n")
	b.WriteString("event (the spec's top-level form, the nested form, a gateway's bare `{\"error\": ...}`), `response.failed` and\n")
	b.WriteString("the reason of `response.incomplete`. A code with a retry class is retried on that class's schedule; one without is\n")
	b.WriteString("final: the same input reproduces it, so the turn ends at once with the server's message and the advice below. Codes not\n")
	b.WriteString("in the table are retried as `server_error`, as the reference client does; an HTTP status decides a body without a\n")
	b.WriteString("final code. A response cut by `max_output_tokens` after it answered is not a failure: the partial answer is the\n")
	b.WriteString("answer (recorded once, printed, exit 0) and a warning says it was cut. A refusal is the answer too (exit 7).\n\n")
	b.WriteString("| code | kind | retried as | advice |\n|---|---|---|---|\n")
	for _, r := range modelclient.CodeRules() {
		class := r.Class()
		if class == "" {
			class = "not retried"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", r.Code, r.Kind, class, r.Advice)
	}
}
