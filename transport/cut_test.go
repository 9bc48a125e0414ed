package transport_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/transport"
)

// decodeAfterDone decodes done then completed (fed in pieces of n bytes
// through a Cutter when cut is set) with one FrameDecoder: the completed
// frame's event, the bytes joined, and its error.
func decodeAfterDone(t *testing.T, done, completed string, n int, cut bool) (transport.Event, int, error) {
	t.Helper()
	d := &transport.FrameDecoder{}
	if err := d.Decode("", done, func(transport.Event) bool { return true }); err != nil {
		t.Fatalf("done: %v", err)
	}
	var pieces [][]byte
	for b := []byte(completed); len(b) > 0; b = b[min(n, len(b)):] {
		pieces = append(pieces, b[:min(n, len(b))])
	}
	if cut {
		pieces = cutPieces(d, pieces)
	}
	data := string(bytes.Join(pieces, nil))
	var ev transport.Event
	err := d.Decode("", data, func(e transport.Event) bool { ev = e; return true })
	return ev, len(data), err
}

// cutPieces feeds pieces through d's Cutter, as the transports do, and
// returns what it kept. Each piece is fed from a buffer of its own, which
// is overwritten when Feed says none of it was kept, as a transport
// reuses it.
func cutPieces(d *transport.FrameDecoder, pieces [][]byte) [][]byte {
	var kept [][]byte
	c := d.NewCutter("", func(b []byte, _ bool) { kept = append(kept, b) })
	if c == nil {
		return pieces
	}
	for _, p := range pieces {
		buf := bytes.Clone(p)
		if !c.Feed(buf) {
			for i := range buf {
				buf[i] = '#'
			}
		}
	}
	c.End()
	return kept
}

// TestCutterLeavesDeliveredItemsOut: a response.completed listing a
// 256 KiB message the stream delivered again (as OpenAI does) is joined
// without it, and decodes to what the whole frame decodes to, wherever
// the item lies in the output and wherever the pieces are cut (pieces
// larger than the item, a few to it, and many). The size is what the
// pieces need, not a realistic one: under -race every byte is checked
// 36 times over (at 2 MiB it took 10 s of a loaded machine's CPU).
func TestCutterLeavesDeliveredItemsOut(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(`lorem \"ipsum\" `, 256<<10/16)
	item := `{"id":"m1","type":"message","role":"assistant","content":[{"type":"output_text","text":"` + big + `"}]}`
	done := `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`
	other := `{"id":"r1","type":"reasoning","summary":[] , "n": 1}`
	for _, output := range []string{item, item + "," + other, other + " , " + item, other + "," + item + "," + other, item + "," + item, " " + item + " "} {
		completed := `{"type":"response.completed","response":{"id":"resp","status":"completed","output":[` + output + `],"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}`
		for _, n := range []int{1 << 20, 64 << 10, 4093} { // what the transports feed: 64 KiB
			want, _, werr := decodeAfterDone(t, done, completed, n, false)
			got, size, gerr := decodeAfterDone(t, done, completed, n, true)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !cmp.Equal(want, got) {
				t.Errorf("output %.40q..., pieces of %d: trimmed %v, %v; whole %v, %v", output, n, got, gerr, want, werr)
			}
			if size > 4096 {
				t.Errorf("output %.40q..., pieces of %d: joined %d bytes; want the delivered item left out", output, n, size)
			}
		}
	}
}

// FuzzCutter: whatever a completed frame holds, cutting it as it is read
// (from any size, in pieces of 1 to 97 bytes) decodes to what the whole
// frame decodes to. (A frame that fails only for a malformed item the
// stream delivered before, listed again, is read without it: the items
// left out are matched by brackets, not validated.)
func FuzzCutter(f *testing.F) {
	f.Add(`{"id":"m1","type":"message","role":"assistant","content":[]}`, `[{"id":"m1","type":"message","role":"assistant","content":[]},{"id":"x","type":"reasoning","summary":[]}]`, 7)
	f.Add(`{"id":"m1","type":"message"}`, `[ {"type":"message","id":"m1"} , {"id":"m1"} ]`, 3)
	f.Add(`{"id":"c","type":"function_call","call_id":"c","name":"n","arguments":"{}"}`, `[{"id":"c","type":"function_call","call_id":"c","name":"n","arguments":"{\"a\":\"\\\\\"}"}]`, 1)
	f.Fuzz(func(t *testing.T, item, output string, n int) {
		n = 1 + max(0, n)%97
		done := `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`
		d := &transport.FrameDecoder{}
		if d.Decode("", done, func(transport.Event) bool { return true }) != nil {
			return
		}
		completed := `{"type":"response.completed","response":{"id":"r","output":` + output + `,"usage":null}}`
		want, _, werr := decodeAfterDone(t, done, completed, n, false)
		got, _, gerr := decodeAfterDone(t, done, completed, n, true)
		if werr == nil && (gerr != nil || !cmp.Equal(want, got)) {
			t.Fatalf("trimmed %v, %v; whole %v, %v", got, gerr, want, werr)
		}
	})
}

// FuzzCutterFrame is FuzzCutter with the whole completed frame fuzzed:
// its members, their order and the white space between them.
func FuzzCutterFrame(f *testing.F) {
	f.Add(`{"id":"m1","type":"message"}`, `{"type":"response.completed","response":{"id":"r","output":[{"id":"m1","type":"message"},{"id":"x","type":"message"}],"usage":null}}`, 5)
	f.Add(`{"id":"m1","type":"message"}`, ` { "type" : "response.completed" , "x":[1,{"a":"]"}], "response" : { "output" : [ 1 , {"id":"m1"} , "s" ] , "id":"r" } } `, 2)
	f.Add(`{"id":"m1","type":"message"}`, `{"type":"response.completed","response":{"output":[{"id":"m1"}]},"response":{"output":[{"id":"m1"},{"id":"m2","type":"message"}]}}`, 9)
	f.Fuzz(func(t *testing.T, item, completed string, n int) {
		n = 1 + max(0, n)%97
		done := `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`
		d := &transport.FrameDecoder{}
		if d.Decode("", done, func(transport.Event) bool { return true }) != nil {
			return
		}
		want, _, werr := decodeAfterDone(t, done, completed, n, false)
		got, _, gerr := decodeAfterDone(t, done, completed, n, true)
		if werr == nil && (gerr != nil || !cmp.Equal(want, got)) {
			t.Fatalf("cut %v, %v; whole %v, %v", got, gerr, want, werr)
		}
	})
}
