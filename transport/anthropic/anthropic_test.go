package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/anthropic"
	"github.com/agentcli/agent/transport/sse"
)

// replay serves body as a Messages stream and reads it through the SSE
// transport with the Anthropic decoder: the events and the error.
func replay(t *testing.T, body string) ([]transport.Event, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	tr := sse.New(&sse.Options{Decoder: anthropic.Decoder{}})
	st, err := tr.Open(context.Background(), &transport.Request{URL: srv.URL + "/messages", Header: http.Header{}, Body: []byte("{}")})
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

// fixture is a replayed stream of testdata (README.md there says where
// each one's bytes come from).
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summary is what a user would see of events: text, reasoning, the items
// done and the completion with its usage.
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
			case "reasoning":
				var r struct {
					Summary []struct {
						Text string `json:"text"`
					} `json:"summary"`
					Encrypted string `json:"encrypted_content"`
				}
				_ = json.Unmarshal(it.Raw, &r)
				fmt.Fprintf(&b, "reasoning item %d summaries, block %s\n", len(r.Summary), r.Encrypted)
			}
		case transport.Malformed:
			fmt.Fprintf(&b, "malformed %s: %s\n", ev.Type, ev.Problem)
		case transport.Completed:
			fmt.Fprintf(&b, "completed %s", ev.ResponseID)
			if u := ev.Usage; u != nil {
				fmt.Fprintf(&b, " in=%d cached=%d written=%d out=%d total=%d", u.InputTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.OutputTokens, u.TotalTokens)
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
		{"sdk_python_basic.sse", `text "Hello"
text " there"
text "!"
message "Hello there!" refused=false
completed msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK in=11 cached=0 written=0 out=6 total=17
`},
		{"sdk_python_tool_use.sse", `text "I"
text "'ll check the current weather in Paris for you."
message "I'll check the current weather in Paris for you." refused=false
call toolu_01NRLabsLyVHZPKxbKvkfSMn get_weather {"location": "Paris"}
completed msg_019Q1hrJbZG26Fb9BQhrkHEr in=377 cached=0 written=0 out=65 total=442
`},
		{"docs_thinking.sse", `reasoning "Let me solve this step by step:\n\n1. First break down 27 * 453"
reasoning "\n2. 453 = 400 + 50 + 3"
reasoning item 1 summaries, block {"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...","thinking":"Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3","type":"thinking"}
text "27 * 453 = 12,231"
message "27 * 453 = 12,231" refused=false
completed msg_01...
`},
		// A tool called without arguments: its input is {}.
		{"aisdk_tool-no-args.sse", `text "I'll update the issue list for"
text " you."
message "I'll update the issue list for you." refused=false
call toolu_01QE1WLsSVp5hy5Q3GmGTmjP updateIssueList {}
completed msg_01GE2RKp1VYsPzdFs3sS9z5S in=565 cached=0 written=0 out=48 total=613
`},
		// message_delta's usage is cumulative: its input count wins.
		{"aisdk_message-delta-input-tokens.sse", `text "p"
text "ong"
message "pong" refused=false
completed msg_3196a1cc08de4d76b85b8f5777c0d42b in=61 cached=0 written=0 out=2 total=63
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

// The documentation's error event mid-stream: an APIError the classifier
// reads by its type; the text before it is not an answer.
func TestReplayedErrorEvent(t *testing.T) {
	evs, err := replay(t, fixture(t, "docs_error.sse"))
	var ae *transport.APIError
	if !errors.As(err, &ae) || ae.Code != "overloaded_error" || ae.Message != "Overloaded" {
		t.Fatalf("err = %#v; want the overloaded_error APIError", err)
	}
	for _, ev := range evs {
		switch ev.(type) {
		case transport.Completed, transport.OutputItemDone:
			t.Errorf("a failed stream delivered %T: %s", ev, summary(evs))
		}
	}
}

// Cache reads and writes: input_tokens leaves them out, the usage counts
// them in as OpenAI does and says which were which.
func TestCacheUsage(t *testing.T) {
	body := `event: message_start
data: {"type":"message_start","message":{"id":"msg_c","type":"message","role":"assistant","content":[],"usage":{"input_tokens":21,"cache_creation_input_tokens":188,"cache_read_input_tokens":1800,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":393}}

event: message_stop
data: {"type":"message_stop"}

`
	evs, err := replay(t, body)
	if err != nil {
		t.Fatal(err)
	}
	want := "text \"ok\"\nmessage \"ok\" refused=false\ncompleted msg_c in=2009 cached=1800 written=188 out=393 total=2402\n"
	if got := summary(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// A stream cut before message_stop is incomplete, named so; the items of
// blocks that finished stand, a call never runs from a cut block.
func TestCutBeforeMessageStop(t *testing.T) {
	body := fixture(t, "sdk_python_tool_use.sse")
	body = body[:strings.Index(body, `"partial_json":"ar"`)]
	body = body[:strings.LastIndex(body, "event:")]
	evs, err := replay(t, body)
	var early *transport.ClosedEarlyError
	if !errors.Is(err, transport.ErrIncomplete) || !errors.As(err, &early) || early.End != "message_stop" {
		t.Fatalf("err = %v; want closed before message_stop", err)
	}
	for _, ev := range evs {
		if d, ok := ev.(transport.OutputItemDone); ok && d.Item.IsCall() {
			t.Errorf("a cut stream delivered a call: %s", summary(evs))
		}
	}
}

// stop_reason max_tokens is the cut-short answer; refusal the refusal.
func TestStopReasons(t *testing.T) {
	for reason, want := range map[string]string{"max_tokens": "max_output_tokens", "refusal": "content_filter"} {
		body := strings.Replace(fixture(t, "sdk_python_basic.sse"), `"stop_reason":"end_turn"`, `"stop_reason":"`+reason+`"`, 1)
		evs, err := replay(t, body)
		var inc *transport.IncompleteError
		if !errors.As(err, &inc) || inc.Reason != want {
			t.Errorf("%s: err = %v; want incomplete %s", reason, err, want)
		}
		if reason == "max_tokens" && !strings.Contains(summary(evs), `message "Hello there!"`) {
			t.Errorf("max_tokens: the answer so far is not delivered: %s", summary(evs))
		}
	}
}

// Blocks agent does not read (the API's own server tools) are said, not
// dropped silently; redacted thinking is kept whole.
func TestOtherBlocks(t *testing.T) {
	body := `data: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}

data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}

data: {"type":"content_block_stop","index":0}

data: {"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}

data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}

data: {"type":"content_block_stop","index":1}

data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}

data: {"type":"message_stop"}

`
	evs, err := replay(t, body)
	if err != nil {
		t.Fatal(err)
	}
	want := `reasoning item 0 summaries, block {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}
malformed content_block_start: a content block of type "server_tool_use", which agent does not read
completed m in=1 cached=0 written=0 out=3 total=4
`
	if got := summary(evs); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}
