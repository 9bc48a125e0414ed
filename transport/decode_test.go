package transport_test

import (
	"encoding/json"
	"errors"
	"strings"
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

// TestDecodeErrorShapes: every form an error event takes is read, and
// its code is the code.
func TestDecodeErrorShapes(t *testing.T) {
	tests := []struct {
		name, typ, data string
		want            transport.APIError
	}{
		{"the spec's form: code, message and param at the top level", "",
			`{"type":"error","code":"context_length_exceeded","message":"too long","param":"input","sequence_number":3}`,
			transport.APIError{Event: "error", Code: "context_length_exceeded", Message: "too long", Param: "input"}},
		{"the nested form, with the WebSocket's status", "",
			`{"type":"error","status":400,"error":{"type":"invalid_request_error","code":"invalid_prompt","message":"nope"}}`,
			transport.APIError{Event: "error", Status: 400, Type: "invalid_request_error", Code: "invalid_prompt", Message: "nope"}},
		{"a gateway's bare error, no type (LiteLLM)", "",
			`{"error":{"message":"upstream said no","type":"invalid_request_error","code":"invalid_prompt"}}`,
			transport.APIError{Event: "error", Type: "invalid_request_error", Code: "invalid_prompt", Message: "upstream said no"}},
		{"a bare error with a numeric code and a string error", "",
			`{"error":"boom","code":500}`,
			transport.APIError{Event: "error", Code: "500", Message: "boom"}},
		{"an SSE event named error, no type", "error",
			`{"code":"server_error","message":"oops"}`,
			transport.APIError{Event: "error", Code: "server_error", Message: "oops"}},
		{"response.failed with a null message and a numeric code", "",
			`{"type":"response.failed","response":{"id":"r","error":{"code":429,"message":null}}}`,
			transport.APIError{Event: "response.failed", ResponseID: "r", Code: "429"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := transport.Decode(tt.typ, []byte(tt.data))
			var ae *transport.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("Decode = %v; want an APIError", err)
			}
			if diff := cmp.Diff(tt.want, *ae); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodePerType: a field typed otherwise than agent expects never
// breaks a known event.
func TestDecodePerType(t *testing.T) {
	tests := []struct {
		name string
		data string
		want transport.Event
	}{
		{"a top-level string status on response.completed", `{"type":"response.completed","status":"completed","response":{"id":"r","status":"completed"}}`,
			transport.Completed{ResponseID: "r"}},
		{"an object delta is named, not shown as empty text", `{"type":"response.output_text.delta","item_id":"m","delta":{"text":"x"}}`,
			transport.Malformed{Type: "response.output_text.delta", ItemID: "m", Problem: `"delta" is an object, not a string`,
				Raw: json.RawMessage(`{"type":"response.output_text.delta","item_id":"m","delta":{"text":"x"}}`)}},
		{"a string summary_index and a string status", `{"type":"response.reasoning_summary_part.added","item_id":"rs","summary_index":"1","status":"in_progress"}`,
			transport.ReasoningSummaryPartAdded{ItemID: "rs"}},
		{"end_turn as a string, an id as a number", `{"type":"response.completed","response":{"id":7,"end_turn":"no","incomplete_details":"n/a","error":{},"output":{}}}`,
			transport.Completed{}},
		{"a refusal delta is the message's text", `{"type":"response.refusal.delta","item_id":"m","delta":"I can't"}`,
			transport.TextDelta{ItemID: "m", Delta: "I can't"}},
		{"unknown events with object deltas stay unknown", `{"type":"response.audio.delta","delta":{"b":1}}`,
			transport.Unknown{Type: "response.audio.delta", Raw: json.RawMessage(`{"type":"response.audio.delta","delta":{"b":1}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := transport.Decode("", []byte(tt.data))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeCompletedOutput: the output response.completed lists is
// kept, and vLLM's completed-but-incomplete is incomplete.
func TestDecodeCompletedOutput(t *testing.T) {
	ev, err := transport.Decode("", []byte(`{"type":"response.completed","response":{"id":"r","output":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},7,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}}`))
	c, ok := ev.(transport.Completed)
	if err != nil || !ok || len(c.Output) != 2 || c.Output[0].CallID != "c" || c.Output[1].Text() != "hi" {
		t.Fatalf("Decode = %#v, %v; want the two items", ev, err)
	}
	if len(c.Malformed) != 1 || c.Malformed[0].Problem != "the item is a number, not an object" || string(c.Malformed[0].Raw) != "7" {
		t.Errorf("Malformed = %+v; want the 7 named", c.Malformed)
	}
	_, err = transport.Decode("", []byte(`{"type":"response.completed","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`))
	var ie *transport.IncompleteError
	if !errors.As(err, &ie) || ie.Reason != "max_output_tokens" {
		t.Errorf("a completed response with status incomplete = %v; want an IncompleteError", err)
	}
}

// TestDecodeFrameFinal: over WebSocket (no event name) an undecodable
// response.completed is an error, never skipped; other broken frames are.
func TestDecodeFrameFinal(t *testing.T) {
	for data, want := range map[string]string{
		`{"type":"response.completed","response":"garbage"}`:        "error",
		`{"type":"response.completed","response":{"id":"r"`:         "error",
		`{"type":"response.completed"}`:                             "error",
		`{"type":"response.output_item.done","item":"garbage"}`:     "malformed",
		`{"type":"response.output_item.added","item":"garbage"}`:    "skip",
		`{"type":"response.output_text.delta","delta":"x"` + "\x00": "skip",
	} {
		ev, skip, err := transport.DecodeFrame("", data)
		_, malformed := ev.(transport.Malformed)
		got := map[bool]string{true: "skip"}[skip]
		switch {
		case err != nil:
			got = "error"
		case malformed:
			got = "malformed"
		}
		if got != want {
			t.Errorf("DecodeFrame(%s) = %v, skip %v, err %v; want %s", data, ev, skip, err, want)
		}
	}
}

// TestRefusal: a refusal part is the message's text, and says it refused.
func TestRefusal(t *testing.T) {
	it, err := transport.ParseItem([]byte(`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}`))
	if err != nil || it.Text() != "I can't help with that." || !it.Refused() {
		t.Errorf("Text %q Refused %v err %v", it.Text(), it.Refused(), err)
	}
	if it, _ := transport.ParseItem([]byte(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`)); it.Refused() {
		t.Error("an answer is not a refusal")
	}
}

// TestDecodeMalformedContent: an output item whose content agent cannot
// read is named, field and all, with the raw event: left out when it
// cannot be parsed, used without the part when only a part is unknown.
func TestDecodeMalformedContent(t *testing.T) {
	done := func(item string) string { return `{"type":"response.output_item.done","item":` + item + `}` }
	for _, tt := range []struct {
		name, data, problem string
		kept                bool
	}{
		{"content a string", done(`{"type":"message","id":"m1","role":"assistant","content":"hello"}`),
			`"content" is a string, not an array of parts`, false},
		{"content an object", done(`{"type":"message","id":"m1","role":"assistant","content":{"text":"hello"}}`),
			`"content" is an object, not an array of parts`, false},
		{"a part a number", done(`{"type":"message","id":"m1","role":"assistant","content":[5]}`),
			`content part 1 is a number, not an object`, false},
		{"text a number", done(`{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":42}]}`),
			`content part 2's "text" is a number, not a string`, false},
		{"refusal an object", done(`{"type":"message","id":"m1","role":"assistant","content":[{"type":"refusal","refusal":{"why":"no"}}]}`),
			`content part 1's "refusal" is an object, not a string`, false},
		{"reasoning text an array", done(`{"type":"reasoning","id":"m1","content":[{"type":"reasoning_text","text":["x"]}]}`),
			`content part 1's "text" is an array, not a string`, false},
		{"an unknown part without text", done(`{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"hi"},{"type":"output_audio","data":"AAA"}]}`),
			`content part 2 is of type "output_audio", which agent does not read`, true},
		{"a call id a number", done(`{"type":"function_call","id":"m1","call_id":5,"name":"f","arguments":"{}"}`),
			`"call_id" is a number, not a string`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, skip, err := transport.DecodeFrame("", tt.data)
			if err != nil || skip {
				t.Fatalf("DecodeFrame = %v, skip %v, %v; want the event", ev, skip, err)
			}
			want := transport.Malformed{Type: "response.output_item.done", ItemID: "m1", Problem: tt.problem, Kept: tt.kept, Raw: json.RawMessage(tt.data)}
			var got transport.Malformed
			switch ev := ev.(type) {
			case transport.Malformed:
				got = ev
			case transport.OutputItemDone:
				if ev.Problem == nil || ev.Item.ID != "m1" {
					t.Fatalf("OutputItemDone %+v; want the item and its problem", ev)
				}
				got = *ev.Problem
			default:
				t.Fatalf("DecodeFrame = %#v", ev)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Message(), tt.problem) || !strings.Contains(got.Message(), "item m1") {
				t.Errorf("Message() = %q; want the problem and the item named", got.Message())
			}
		})
	}
	// A part of another type with text is read: no problem.
	ev, _, _ := transport.DecodeFrame("", done(`{"type":"message","id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}]}`))
	if d, ok := ev.(transport.OutputItemDone); !ok || d.Problem != nil || d.Item.Text() != "hi" {
		t.Errorf("a text part of another type = %#v; want it read", ev)
	}
}

// FuzzIgnored: a frame Ignored drops (whole, or by its first bytes under
// an event name) is one DecodeFrame turns into Unknown or skips.
func FuzzIgnored(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{\"a\""}`,
		`{"type":"response.output_text.done","text":"hi"}`,
		`{"type":"response.output_text.delta","delta":"hi"}`,
		`{"type":"response.completed","response":{}}`,
		`{"type":"x","type":"response.completed"}`,
		`{"type":"x", "response": "response.completed" `,
		`{ "type" : "x" , "item": {`,
		`{"type":"x\u0041"}`,
		`{"TYPE":"x"}`,
	} {
		f.Add("", s, uint8(0))
		f.Add("response.completed", s, uint8(10))
		f.Add("e", s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, typ, data string, cut uint8) {
		whole := transport.Ignored(typ, []byte(data))
		// In pieces it may keep a frame it cannot judge from the first
		// (the type cut), never drop one Ignored keeps.
		if c := min(len(data), int(cut)); typ == "" && transport.IgnoredPieces([][]byte{[]byte(data[:c]), []byte(data[c:])}) && !whole {
			t.Fatalf("IgnoredPieces drops %q cut at %d, which Ignored keeps", data, c)
		}
		prefix := typ != "" && transport.Ignored(typ, []byte(data[:min(len(data), int(cut))]))
		if !whole && !prefix {
			return
		}
		if strings.Count(data, `"type"`) > 1 || strings.Contains(strings.ToLower(data), `"type"`) && strings.Count(strings.ToLower(data), `"type"`) > 1 {
			return // two types: read by the first, as documented
		}
		ev, skip, err := transport.DecodeFrame(typ, data)
		if _, unknown := ev.(transport.Unknown); !skip && !unknown {
			t.Fatalf("Ignored(%q, %q) but DecodeFrame = %T %v, skip %v, %v", typ, data, ev, ev, skip, err)
		}
	})
}

// FuzzLeadingID: the id leadingID reads from an item's first members is
// the one encoding/json decodes.
func FuzzLeadingID(f *testing.F) {
	for _, s := range []string{
		`{"id":"fc_1","type":"function_call"}`, `{"type":"x","n":1.5e3,"b":true,"z":null,"id":"a"}`,
		`{"s":"q\"uo\\te","id":"b"}`, `{"o":{},"id":"c"}`, `{"ID":"d","id":"e"}`, `{"id":"\u0041"}`, `{"id":5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		id, ok := transport.LeadingIDForTest([]byte(data))
		if !ok || !json.Valid([]byte(data)) || strings.Count(strings.ToLower(data), `"id"`) != 1 {
			return
		}
		var v struct {
			ID any `json:"id"`
		}
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			return // not an object
		}
		if v.ID != id {
			t.Fatalf("leadingID(%s) = %q; encoding/json reads %#v", data, id, v.ID)
		}
	})
}

// FuzzDecodeLarge holds the large-event path equal to the general one:
// what it decodes, the general path decodes the same, errors included.
func FuzzDecodeLarge(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"m","content":[{"type":"output_text","text":"x\"}"}]},"sequence_number":3}`,
		`{"type":"response.output_item.done","item":{"type":"function_call","id":"f","call_id":"c","name":"n","arguments":"{\"a\":\"]\"}"}}`,
		`{"type":"response.output_item.done","item":{"type":"message","content":"x"}}`,
		`{"type":"response.output_item.done","item":{"id":5}}`,
		`{"type":"response.output_item.done","item":{"type":"x"},"item":{"type":"y"}}`,
		`{"type":"response.output_item.done","item":{"type":"x",}}`,
		`{"type":"response.output_item.done","item":[1,{"a":"\\"}]}`,
		`{"type":"response.completed","response":{"id":"r","status":"completed","output":[{"type":"message","id":"m"}],"usage":{"input_tokens":1}}}`,
		`{"type":"response.completed","response":{"id":"r","status":"incomplete"}}`,
		`{"type":"response.completed","response":{"id":"r"},"TYPE":"x"}`,
		`{"type":"response.completed","response":{"id":"r" "x"}}`,
		`{"type":"response.completed","response":"str"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		fast, ok, ferr := transport.DecodeLargeForTest(data)
		if !ok {
			return
		}
		slow, serr := transport.DecodeSlowForTest([]byte(data))
		if (ferr != nil) != (serr != nil) {
			t.Fatalf("%s: large path %#v, %v; general path %#v, %v", data, fast, ferr, slow, serr)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s: (-general +large):\n%s", data, diff)
		}
	})
}
