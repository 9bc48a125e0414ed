package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/transport"
)

// FuzzAppendJSONString holds the rollout's encoder of long messages to
// encoding/json's.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<b>&</b> \"q\" \\ \n\r\t\b\f\x01\x1f\x7f", "é ✓ \u2028\u2029 \xff\xfe", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendJSONString(%q) = %s; json.Marshal %s", s, got[1:], want)
		}
		for _, chunk := range []int{1, 2, 3, 7} {
			var got []byte
			_ = jsonStringChunks(s, chunk, func(b []byte) error { got = append(got, b...); return nil })
			if string(got) != string(want) {
				t.Fatalf("jsonStringChunks(%q, %d) = %s; json.Marshal %s", s, chunk, got, want)
			}
		}
	})
}

// TestLargeLines: an answer and an item of 1 MiB are recorded as
// json.Marshal and the buffer would record them, in order between small
// lines, and read back whole; the large pieces are written from where they
// lie (the message encoded in pieces as it is written), not copied into
// the buffer: json.Marshal's encoding and the buffer's copies allocated
// 3-4x the answer.
func TestLargeLines(t *testing.T) {
	r, err := Create(t.Context(), t.TempDir(), SessionMeta{ID: "s1", Cwd: "/p"}, time.Date(2024, 3, 9, 14, 5, 6, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text := strings.Repeat("lorem <ipsum> & \"dolor\" é\u2028\n", 1<<20/32)
	item, err := json.Marshal(map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}})
	if err != nil {
		t.Fatal(err)
	}
	ev := EventMsg{Type: EventAgentMessage, Message: text, Provider: "p"}
	for _, err := range []error{
		r.AppendEvent(EventMsg{Type: EventUserMessage, Message: "hi"}),
		r.AppendEvent(ev),
		r.AppendItems(transport.Item{Type: "message", Raw: item}, transport.Item{Type: "message", Raw: json.RawMessage(`{"type":"message","role":"user"}`)}),
		r.AppendEvent(EventMsg{Type: EventTurnCompleted}),
		r.Sync(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 6 {
		t.Fatalf("%d lines; want 6 (meta, user, answer, 2 items, turn end)", len(lines))
	}
	want, _ := json.Marshal(ev)
	if !bytes.HasSuffix(lines[2], append(append([]byte(`"type":"event_msg","payload":`), want...), '}')) {
		t.Errorf("the answer's line is not json.Marshal's encoding: %.120s...", lines[2])
	}
	if !bytes.HasSuffix(lines[3], append(append([]byte(`"payload":`), item...), '}')) {
		t.Errorf("the item's line is not its raw JSON: %.120s...", lines[3])
	}
	ro, err := Load(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.Events) != 3 || ro.Events[1].Message != text || len(ro.History) != 2 || !bytes.Equal(ro.History[0].Raw, item) || ro.Title != "hi" {
		t.Errorf("read back %d events, %d items, title %q; want the answer and the item whole", len(ro.Events), len(ro.History), ro.Title)
	}

	plain := strings.Repeat("lorem ipsum dolor sit amet, consectetur\n", 1<<20/40)
	ev.Message = plain
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := r.AppendEvent(ev); err != nil {
		t.Fatal(err)
	}
	if err := r.AppendItems(transport.Item{Type: "message", Raw: item}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(plain))/2 {
		t.Errorf("recording a %d KiB answer and item allocated %d KiB; want at most half the answer (a buffer to encode it in pieces)", len(plain)>>10, alloc>>10)
	}
}

// TestManySmallItemsAreNotHeld: lines appended one at a time and one
// batch of 20,000 small items are written as the buffer fills, not held
// until the next flush: before it, the file already holds all but at most
// writeAt bytes of them; and the batch is encoded into one reused buffer,
// allocating under 1.5× its lines (0.8×, 1.1× under the race detector;
// it allocated 6× them, all encoded at once in a buffer grown a quarter
// at a time). One response of 200,000 small items held 166 MB of encoded
// lines until its turn ended (issue 42).
func TestManySmallItemsAreNotHeld(t *testing.T) {
	r, err := Create(t.Context(), t.TempDir(), SessionMeta{ID: "s1", Cwd: "/p"}, time.Date(2024, 3, 9, 14, 5, 6, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	items := make([]transport.Item, 20000)
	for i := range items {
		items[i] = transport.Item{Type: "message", Raw: json.RawMessage(`{"type":"message","id":"msg_` + strconv.Itoa(i) + `","role":"assistant","content":[{"type":"output_text","text":"item of the answer"}]}`)}
	}
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(r.Path())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	start := size()
	for _, it := range items {
		if err := r.AppendItems(it); err != nil {
			t.Fatal(err)
		}
	}
	one := size() - start
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	if all := size() - start; all-one > writeAt {
		t.Errorf("20,000 items appended one at a time: %d of their %d bytes written before the flush; want all but %d at most", one, all, writeAt)
	}
	start = size()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := r.AppendItems(items...); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	batch := size() - start
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	all := size() - start
	if all-batch > writeAt {
		t.Errorf("20,000 items in one batch: %d of their %d bytes written before the flush; want all but %d at most", batch, all, writeAt)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(all)*3/2 {
		t.Errorf("20,000 items (%d bytes of lines) in one batch allocated %d bytes; want under 1.5× the lines", all, alloc)
	}
}
