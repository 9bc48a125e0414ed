package transport_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/transport"
)

func TestDecode(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		data string
		want transport.Event
	}{
		{"created", `{"type":"response.created","response":{"id":"r1"}}`, transport.Created{ResponseID: "r1"}},
		{"delta", `{"type":"response.output_text.delta","item_id":"m1","delta":"hi"}`, transport.TextDelta{ItemID: "m1", Delta: "hi"}},
		{"reasoning delta", `{"type":"response.reasoning_summary_text.delta","item_id":"rs","delta":"x","summary_index":2}`,
			transport.ReasoningSummaryDelta{ItemID: "rs", Delta: "x", SummaryIndex: 2}},
		{"part added", `{"type":"response.reasoning_summary_part.added","item_id":"rs","summary_index":1}`,
			transport.ReasoningSummaryPartAdded{ItemID: "rs", SummaryIndex: 1}},
		{"reasoning content", `{"type":"response.reasoning_text.delta","item_id":"rs","delta":"y","content_index":3}`,
			transport.ReasoningContentDelta{ItemID: "rs", Delta: "y", ContentIndex: 3}},
		{"tool input delta", `{"type":"response.custom_tool_call_input.delta","item_id":"c","call_id":"k","delta":"*"}`,
			transport.ToolCallInputDelta{ItemID: "c", CallID: "k", Delta: "*"}},
		{"completed with usage", `{"type":"response.completed","response":{"id":"r1","end_turn":true,"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4,"cache_write_tokens":1},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":15}}}`,
			transport.Completed{ResponseID: "r1", EndTurn: &yes, Usage: &transport.Usage{InputTokens: 10, CachedInputTokens: 4, CacheWriteInputTokens: 1, OutputTokens: 5, ReasoningOutputTokens: 2, TotalTokens: 15}}},
		{"completed with float and string counts (gateways)", `{"type":"response.completed","response":{"id":"r1","usage":{"input_tokens":10.0,"output_tokens":"5","total_tokens":1.5e1,"output_tokens_details":{"reasoning_tokens":null}}}}`,
			transport.Completed{ResponseID: "r1", Usage: &transport.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}},
		{"completed with an odd usage keeps the answer", `{"type":"response.completed","response":{"id":"r1","usage":"n/a"}}`,
			transport.Completed{ResponseID: "r1"}},
		{"unknown type", `{"type":"response.future_thing","x":1}`,
			transport.Unknown{Type: "response.future_thing", Raw: json.RawMessage(`{"type":"response.future_thing","x":1}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := transport.Decode("", []byte(tt.data))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeItem(t *testing.T) {
	raw := `{"type":"response.output_item.done","item":{"type":"message","role":"assistant","id":"m1","content":[{"type":"output_text","text":"hel"},{"type":"output_text","text":"lo"}],"extra":{"kept":true}}}`
	ev, err := transport.Decode("", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	done, ok := ev.(transport.OutputItemDone)
	if !ok {
		t.Fatalf("Decode = %T; want OutputItemDone", ev)
	}
	if got := done.Item.Text(); got != "hello" {
		t.Errorf("Text() = %q; want hello", got)
	}
	if done.Item.Role != "assistant" || done.Item.ID != "m1" {
		t.Errorf("item = %+v", done.Item)
	}
	// Replayed verbatim: fields the client does not model survive.
	b, _ := json.Marshal(done.Item)
	if want := `{"type":"message","role":"assistant","id":"m1","content":[{"type":"output_text","text":"hel"},{"type":"output_text","text":"lo"}],"extra":{"kept":true}}`; string(b) != want {
		t.Errorf("Marshal = %s; want %s", b, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		_, err := transport.Decode("", []byte(`{"type":"response.failed","response":{"id":"r","error":{"code":"context_length_exceeded","message":"too long"}}}`))
		var ae *transport.APIError
		if !errors.As(err, &ae) || ae.Code != "context_length_exceeded" || ae.Message != "too long" || ae.Event != "response.failed" {
			t.Errorf("Decode(response.failed) err = %#v", err)
		}
	})
	t.Run("incomplete", func(t *testing.T) {
		_, err := transport.Decode("", []byte(`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}`))
		var ie *transport.IncompleteError
		if !errors.As(err, &ie) || ie.Reason != "max_output_tokens" {
			t.Errorf("Decode(response.incomplete) err = %#v", err)
		}
	})
	t.Run("error event with status", func(t *testing.T) {
		_, err := transport.Decode("", []byte(`{"type":"error","status":429,"error":{"type":"rate_limit","code":"rate_limit_exceeded","message":"slow"}}`))
		var ae *transport.APIError
		if !errors.As(err, &ae) || ae.Status != 429 || ae.Code != "rate_limit_exceeded" {
			t.Errorf("Decode(error) err = %#v", err)
		}
	})
	t.Run("bad json", func(t *testing.T) {
		_, err := transport.Decode("x", []byte(`{not json`))
		var de *transport.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("Decode(bad json) err = %v; want DecodeError", err)
		}
	})
	t.Run("bad completed", func(t *testing.T) {
		_, err := transport.Decode("", []byte(`{"type":"response.completed","response":"nope"}`))
		var de *transport.DecodeError
		if !errors.As(err, &de) || de.Type != "response.completed" {
			t.Errorf("Decode(bad completed) err = %v; want DecodeError", err)
		}
	})
	t.Run("sse name used when type missing", func(t *testing.T) {
		ev, err := transport.Decode("response.output_text.delta", []byte(`{"item_id":"m","delta":"d"}`))
		if err != nil || ev != (transport.TextDelta{ItemID: "m", Delta: "d"}) {
			t.Errorf("Decode = %v, %v", ev, err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.created","response":{"id":"r1"}}`,
		`{"type":"response.output_item.done","item":{"type":"message","content":[{"text":"x"}]}}`,
		`{"type":"response.completed","response":{"usage":{"input_tokens":1}}}`,
		`{"type":"response.failed","response":{"error":{"code":"x"}}}`,
		`{"type":"error","status":500}`,
		`{}`, `null`, `[]`,
	} {
		f.Add("", []byte(s))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		ev, err := transport.Decode(typ, data)
		if (ev == nil) == (err == nil) {
			t.Fatalf("Decode(%q) = %v, %v: exactly one of event and error must be set", data, ev, err)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}

// FuzzDecodeDelta holds the fast path equal to the general one.
func FuzzDecodeDelta(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"hi"}`,
		`{"delta":"a\nb \"q\" \u00e9 \ud83d\ude00","type":"response.output_text.delta","item_id":"m1"}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"r","summary_index":2,"delta":"x"}`,
		`{"type":"response.output_text.delta","item_id":"m","delta":"x","obfuscation":"abc","sequence_number":12}`,
		`{"type":"response.output_text.delta","delta":"\u0000"}`,
		`{"type":"response.output_text.delta","item_id":"m","delta":"x",}`,
		`{"type":"response.output_text.delta","item_id":"m","delta":"x"} trailing`,
		`{"type":"response.output_text.delta","n":1.5}`,
		`{"type":"response.output_text.delta","item_id":"m","content_index":"x","delta":"hi"}`,
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"hi","logprobs":[ ],"sequence_number":5}`,
		`{"type":"response.output_text.delta","call_id":7,"delta":"x","Status":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := transport.DecodeDeltaForTest(data)
		if !ok {
			return
		}
		slow, err := transport.DecodeSlowForTest(data)
		if err != nil {
			t.Fatalf("fast path accepted %q, general path failed: %v", data, err)
		}
		if fast != slow {
			t.Fatalf("%q: fast %#v, general %#v", data, fast, slow)
		}
	})
}

// TestDecodeDeltaFastPath: the deltas real streams send (with logprobs
// and sequence_number) take the fast path; a field of wireEvent with a
// value encoding/json rejects does not (it makes the frame undecodable).
func TestDecodeDeltaFastPath(t *testing.T) {
	for data, fast := range map[string]bool{
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"hi","logprobs":[],"sequence_number":5}`: true,
		`{"type":"response.output_text.delta","content_index":0,"delta":"lorem ","item_id":"msg_1","output_index":0}`:                           true,
		`{"type":"response.output_text.delta","item_id":"m","content_index":"x","delta":"hi"}`:                                                  false,
		`{"type":"response.output_text.delta","item_id":"m","logprobs":[{"token":"hi"}],"delta":"hi"}`:                                          false,
	} {
		_, ok := transport.DecodeDeltaForTest([]byte(data))
		if ok != fast {
			t.Errorf("fast path took %s: %v; want %v", data, ok, fast)
		}
	}
}

func TestDecodeDeltaCaseFolding(t *testing.T) {
	data := []byte(`{"type":"response.output_text.delta","item_id":"m","Delta":"folded"}`)
	ev, err := transport.Decode("", data)
	if err != nil || ev != (transport.TextDelta{ItemID: "m", Delta: "folded"}) {
		t.Errorf("Decode = %#v, %v; want the case-folded delta, as encoding/json reads it", ev, err)
	}
}
