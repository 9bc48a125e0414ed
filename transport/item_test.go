package transport_test

import (
	"runtime"
	"strings"
	"testing"

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
