package transport_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentcli/agent/transport"
)

func TestParseItemJoinsToolNamespace(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"function_call","name":"echo","namespace":"mcp__test","call_id":"c"}`:   "mcp__test__echo",
		`{"type":"function_call","name":"echo","namespace":"mcp__test__","call_id":"c"}`: "mcp__test__echo",
		`{"type":"function_call","name":"exec_command","call_id":"c"}`:                   "exec_command",
	} {
		it, err := transport.ParseItem([]byte(raw))
		if err != nil || it.Name != want {
			t.Errorf("ParseItem(%s).Name = %q, %v; want %q", raw, it.Name, err, want)
		}
		if string(it.Raw) != raw {
			t.Errorf("Raw = %s; want the item verbatim", it.Raw)
		}
	}
}

// TestDecodeFrameLargeEventsNotCopied: a 4 MiB event is decoded from its
// data string without another copy: a message's output_item.done and a
// completed response's output keep slices of it as Raw; a call's
// arguments delta, which nothing reads, costs nothing; a call whose
// arguments are 4 MiB (escaped, as a JSON string holding JSON is) costs
// the arguments' one unquoted copy (encoding/json would take two).
func TestDecodeFrameLargeEventsNotCopied(t *testing.T) {
	text := strings.Repeat("lorem ipsum ", 4<<20/12)
	item := `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}`
	args := `{\"cmd\":\"true\",\"justification\":\"` + text + `\"}`
	call := `{"type":"function_call","id":"fc_1","call_id":"c1","name":"exec_command","arguments":"` + args + `"}`
	for _, c := range []struct {
		data   string
		copies float64 // of the data, allocated at most
	}{
		{`{"type":"response.output_item.done","output_index":0,"item":` + item + `}`, 0.1},
		{`{"type":"response.completed","response":{"id":"r","status":"completed","output":[` + item + `]}}`, 0.1},
		{`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"` + args + `"}`, 0.1},
		{`{"type":"response.output_item.done","output_index":0,"item":` + call + `}`, 1.1},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ev, skip, err := transport.DecodeFrame("", c.data)
		runtime.ReadMemStats(&after)
		if err != nil || skip {
			t.Fatalf("DecodeFrame(%.40s...) = %T, %v, %v", c.data, ev, skip, err)
		}
		var it transport.Item
		switch ev := ev.(type) {
		case transport.OutputItemDone:
			it = ev.Item
		case transport.Completed:
			if len(ev.Output) == 1 {
				it = ev.Output[0]
			}
		}
		if _, delta := ev.(transport.Unknown); !delta && string(it.Raw) != item && string(it.Raw) != call {
			t.Fatalf("DecodeFrame(%.40s...) = %T; want the item whole", c.data, ev)
		}
		if want := strings.ReplaceAll(args, `\"`, `"`); it.Type == "function_call" && it.Arguments != want {
			t.Errorf("arguments are %.40s... (%d bytes), want %.40s... (%d)", it.Arguments, len(it.Arguments), want, len(want))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; float64(alloc) > float64(len(c.data))*c.copies {
			t.Errorf("decoding a %d KiB %.40s... allocated %d KiB; want at most %.1f copies of it", len(c.data)>>10, c.data, alloc>>10, c.copies)
		}
	}
}

// TestAnswerIsTextAndRefused: Answer is Text and Refused in one decode.
func TestAnswerIsTextAndRefused(t *testing.T) {
	for _, raw := range []string{
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"refusal","refusal":"no"}]}`,
		`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}`,
		`{"type":"reasoning","content":[{"type":"refusal","refusal":"x"}]}`,
	} {
		it, err := transport.ParseItem([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if text, refused := it.Answer(); text != it.Text() || refused != it.Refused() && text != "" {
			t.Errorf("%s: Answer = %q, %v; Text %q, Refused %v", raw, text, refused, it.Text(), it.Refused())
		}
	}
}

// TestDecodeFrameLargeUnknownCopiedOnce: a 4 MiB event of a type agent
// does not read (function_call_arguments.delta, whose arguments come again
// in the item) costs one copy, not an unquoting of its delta first.
func TestDecodeFrameLargeUnknownCopiedOnce(t *testing.T) {
	args := strings.Repeat(`{\"cmd\":\"true\"} `, 4<<20/18)
	data := `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"` + args + `"}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ev, skip, err := transport.DecodeFrame("", data)
	runtime.ReadMemStats(&after)
	if u, ok := ev.(transport.Unknown); err != nil || skip || !ok || u.Type != "response.function_call_arguments.delta" {
		t.Fatalf("DecodeFrame = %#v, %v, %v; want Unknown", ev, skip, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(data))*5/4 {
		t.Errorf("decoding a %d KiB unknown event allocated %d KiB; want one copy of it", len(data)>>10, alloc>>10)
	}
}

// TestFrameDecoderLeavesDeliveredItemsOut: a stream's completed response
// lists its 4 MiB call again, whole, as OpenAI does: the stream's
// FrameDecoder leaves it out of Output without decoding it (no copy of
// its arguments) and keeps the item the stream did not deliver; alone,
// DecodeFrame lists both.
func TestFrameDecoderLeavesDeliveredItemsOut(t *testing.T) {
	args := `{\"cmd\":\"true\",\"justification\":\"` + strings.Repeat("lorem ipsum ", 4<<20/12) + `\"}`
	// Keys sorted, as a gateway may send them: the id after the arguments.
	call := `{"arguments":"` + args + `","call_id":"c1","id":"fc_1","name":"exec_command","status":"completed","type":"function_call"}`
	other := `{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"only here"}]}`
	completed := `{"type":"response.completed","response":{"id":"r","status":"completed","output":[` + call + `,` + other + `]}}`
	dec := transport.ResponsesDecoder{}.NewStream()
	if ev, err := decodeOne(dec, "response.output_item.done", `{"type":"response.output_item.done","item":`+call+`}`); err != nil {
		t.Fatalf("item: %T, %v", ev, err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ev, err := decodeOne(dec, "response.completed", completed)
	runtime.ReadMemStats(&after)
	c, ok := ev.(transport.Completed)
	if err != nil || !ok || len(c.Output) != 1 || c.Output[0].ID != "msg_2" {
		t.Fatalf("completed = %#v, %v; want only msg_2 in Output", ev, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(completed))/8 {
		t.Errorf("decoding the completed response allocated %d KiB; want no copy of the delivered call (%d KiB)", alloc>>10, len(completed)>>10)
	}
	ev, _, err = transport.DecodeFrame("response.completed", completed)
	if c, ok := ev.(transport.Completed); err != nil || !ok || len(c.Output) != 2 {
		t.Errorf("DecodeFrame(completed) = %T %v; want both items", ev, err)
	}
}

// decodeOne decodes one frame with dec, returning its one event (nil when
// skipped).
func decodeOne(dec transport.StreamDecoder, name, data string) (ev transport.Event, err error) {
	n := 0
	err = dec.Decode(name, data, func(e transport.Event) bool {
		ev = e
		n++
		return true
	})
	if n > 1 {
		return nil, fmt.Errorf("%d events from one frame", n)
	}
	return ev, err
}

// TestDeltaIDHoldsNoData: a 4 MiB delta's item id, which the session
// keeps after the delta is gone, is not a substring of the event's data
// (it would keep all 4 MiB alive).
func TestDeltaIDHoldsNoData(t *testing.T) {
	data := `{"type":"response.output_text.delta","item_id":"msg_1","delta":"` + strings.Repeat("x", 4<<20) + `"}`
	ev, _, err := transport.DecodeFrame("", data)
	d, ok := ev.(transport.TextDelta)
	if err != nil || !ok || d.ItemID != "msg_1" {
		t.Fatalf("DecodeFrame = %#v, %v", ev, err)
	}
	start, end := uintptr(unsafe.Pointer(unsafe.StringData(data))), uintptr(unsafe.Pointer(unsafe.StringData(data)))+uintptr(len(data))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(d.ItemID))); p >= start && p < end {
		t.Error("the delta's item id points into the event's data")
	}
}
