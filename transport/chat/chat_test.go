package chat_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/chat"
	"github.com/agentcli/agent/transport/sse"
)

// replay serves body as a Chat Completions stream and reads it through
// the SSE transport with the chat decoder: the events and the error.
func replay(t *testing.T, body string) ([]transport.Event, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	tr := sse.New(&sse.Options{Decoder: chat.Decoder{}})
	st, err := tr.Open(context.Background(), &transport.Request{URL: srv.URL + "/chat/completions", Header: http.Header{}, Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var evs []transport.Event
	for ev := range st.Events() {
		evs = append(evs, ev)
	}
	return evs, st.Err()
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summary is what a user would see of events: text, reasoning, the
// items done and the completion with its usage.
func summary(evs []transport.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch ev := ev.(type) {
		case transport.TextDelta:
			fmt.Fprintf(&b, "text %q\n", ev.Delta)
		case transport.ReasoningSummaryDelta:
			fmt.Fprintf(&b, "reasoning %q\n", ev.Delta)
		case transport.OutputItemDone:
			it := ev.Item
			switch it.Type {
			case "function_call":
				fmt.Fprintf(&b, "call %s %s %s\n", it.CallID, it.Name, it.Arguments)
			case "message":
				text, refused := it.Answer()
				fmt.Fprintf(&b, "message %q refused=%v\n", text, refused)
			default:
				fmt.Fprintf(&b, "%s %s\n", it.Type, it.Raw)
			}
		case transport.Completed:
			fmt.Fprintf(&b, "completed")
			if u := ev.Usage; u != nil {
				fmt.Fprintf(&b, " in=%d cached=%d out=%d reasoning=%d total=%d", u.InputTokens, u.CachedInputTokens, u.OutputTokens, u.ReasoningOutputTokens, u.TotalTokens)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestReplayedStreams(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"ollama_parallel_tools.sse", `text "Let me look."
message "Let me look." refused=false
call call_wteop8bt exec_command {"cmd":"ls"}
call call_rk2xye1l exec_command {"cmd":"ls -l"}
completed in=231 cached=0 out=41 reasoning=0 total=272
`},
		// Ollama's own bytes: its middleware (v0.17.4) run on native
		// /api/chat lines (testdata/ollamagen): "reasoning", both calls in
		// one chunk, finish_reason tool_calls, the usage chunk.
		{"ollama_v0.17.4_reasoning_tools.sse", `reasoning "The user wants the files "
reasoning "and the git status."
text "Let me look."
reasoning {"summary":[{"text":"The user wants the files and the git status.","type":"summary_text"}],"type":"reasoning"}
message "Let me look." refused=false
call call_a1 exec_command {"cmd":"ls"}
call call_b2 exec_command {"cmd":"git status"}
completed in=412 cached=0 out=58 reasoning=0 total=470
`},
		{"vllm_reasoning_tool.sse", `reasoning "The user wants"
reasoning " the date."
text "Checking."
reasoning {"summary":[{"text":"The user wants the date.","type":"summary_text"}],"type":"reasoning"}
message "Checking." refused=false
call chatcmpl-tool-4e5f exec_command {"cmd": "date"}
completed in=310 cached=256 out=42 reasoning=0 total=352
`},
		{"llamacpp_reasoning.sse", `reasoning "User wrote \"test\"."
text "Hello! "
text "How can I help?"
reasoning {"summary":[{"text":"User wrote \"test\".","type":"summary_text"}],"type":"reasoning"}
message "Hello! How can I help?" refused=false
completed in=1085 cached=0 out=247 reasoning=0 total=1332
`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			evs, err := replay(t, fixture(t, tt.file))
			if err != nil {
				t.Fatalf("stream error = %v", err)
			}
			if got := summary(evs); got != tt.want {
				t.Errorf("events:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestReplayedErrors(t *testing.T) {
	tests := []struct {
		file    string
		code    string
		status  int
		message string
	}{
		{"ollama_error.sse", "", 0, "an error was encountered while running the model: unexpected EOF"},
		{"openrouter_midstream_error.sse", "server_error", 0, "Provider disconnected unexpectedly"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			evs, err := replay(t, fixture(t, tt.file))
			var ae *transport.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("stream error = %v; want an APIError", err)
			}
			if ae.Code != tt.code || ae.Status != tt.status || ae.Message != tt.message {
				t.Errorf("APIError = %+v; want code %q status %d message %q", ae, tt.code, tt.status, tt.message)
			}
			for _, ev := range evs {
				if _, ok := ev.(transport.Completed); ok {
					t.Errorf("a failed stream completed: %s", summary(evs))
				}
			}
		})
	}
}

func TestFinishLengthIsTheCutShortAnswer(t *testing.T) {
	evs, err := replay(t, fixture(t, "openrouter_text.sse"))
	var inc *transport.IncompleteError
	if !errors.As(err, &inc) || inc.Reason != "max_output_tokens" {
		t.Fatalf("err = %v; want incomplete: max_output_tokens", err)
	}
	if got, want := summary(evs), "text \"Hi\"\ntext \" there\"\nmessage \"Hi there\" refused=false\n"; got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestContentFilterIsTheRefusal(t *testing.T) {
	body := `data: {"id":"c","choices":[{"index":0,"delta":{"content":"I"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}

data: [DONE]

`
	_, err := replay(t, body)
	var inc *transport.IncompleteError
	if !errors.As(err, &inc) || inc.Reason != "content_filter" {
		t.Fatalf("err = %v; want incomplete: content_filter", err)
	}
}

// A stream that ends without [DONE] or a finish_reason is cut: asked
// again, as a Responses stream without response.completed.
func TestCutIsIncomplete(t *testing.T) {
	body := fixture(t, "llamacpp_reasoning.sse")
	body = body[:strings.Index(body, `"finish_reason":"stop"`)-len(`data: {"choices":[{`)]
	evs, err := replay(t, body)
	if !errors.Is(err, transport.ErrIncomplete) {
		t.Fatalf("err = %v; want ErrIncomplete", err)
	}
	for _, ev := range evs {
		if _, ok := ev.(transport.OutputItemDone); ok {
			t.Errorf("a cut stream delivered an item: %s", summary(evs))
		}
	}
}

// [DONE] alone ends the stream: what it delivered is the answer.
func TestDoneWithoutFinishReason(t *testing.T) {
	body := "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n"
	evs, err := replay(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(evs), "text \"ok\"\nmessage \"ok\" refused=false\ncompleted\n"; got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// Servers that number every parallel call 0 (or none) still get one item
// per call; a call without an id gets one.
func TestCallsWithoutIndexOrID(t *testing.T) {
	body := `data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}

data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"x\":"}}]}}]}

data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}

data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"h","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	evs, err := replay(t, body)
	if err != nil {
		t.Fatal(err)
	}
	var calls []transport.Item
	for _, ev := range evs {
		if d, ok := ev.(transport.OutputItemDone); ok {
			calls = append(calls, d.Item)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("calls = %d; want 3: %s", len(calls), summary(evs))
	}
	if calls[0].CallID != "a" || calls[1].CallID != "b" || calls[1].Arguments != `{"x":1}` || calls[2].Name != "h" || calls[2].CallID == "" {
		t.Errorf("calls: %s", summary(evs))
	}
}
