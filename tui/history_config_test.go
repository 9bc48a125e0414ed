package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHistoryNoSave: persistence = "none" writes nothing, but what was
// sent is still recalled.
func TestHistoryNoSave(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	m := newLiveModel(t, Options{HistoryPath: path, HistoryNoSave: true})
	if cmd := submit(m, "secret prompt"); cmd != nil {
		for _, msg := range runCmd(cmd) {
			send(m, msg)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("history file written though persistence is none (stat: %v)", err)
	}
	if diff := cmp.Diff([]string{"secret prompt"}, m.hist.entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestHistoryEntryFormat: each line is Codex's {"session_id","ts","text"}.
func TestHistoryEntryFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	m := newLiveModel(t, Options{HistoryPath: path, SessionID: func() string { return "sess-1" }})
	for _, msg := range runCmd(submit(m, "hello")) {
		send(m, msg)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("line %q: %v", b, err)
	}
	if e["session_id"] != "sess-1" || e["text"] != "hello" || e["ts"] == nil || !strings.HasPrefix(string(b), `{"session_id":`) {
		t.Errorf("entry = %s", b)
	}
}

// TestHistoryMaxBytes: a write past max_bytes drops the oldest entries
// down to 80% of the cap; the newest always stays.
func TestHistoryMaxBytes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	const limit = 200
	var texts []string
	for i := range 20 {
		text := strings.Repeat(string(rune('a'+i)), 10)
		texts = append(texts, text)
		if err := appendHistory(path, limit, historyEntry{SessionID: "s", TS: int64(i), Text: text}); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > limit {
			t.Fatalf("after entry %d the file has %d bytes, above max_bytes %d", i, st.Size(), limit)
		}
	}
	got, err := readHistory(path, historyTail)
	if err != nil {
		t.Fatal(err)
	}
	// Each line is 46 bytes: trimming keeps floor(160/46) = 3 lines, and
	// the file then grows back to 4 before the next trim.
	n := len(got)
	if n < 3 || n > 4 || got[n-1] != texts[len(texts)-1] {
		t.Errorf("kept %q; want the newest 3 or 4 entries", got)
	}
	if diff := cmp.Diff(texts[len(texts)-n:], got); diff != "" {
		t.Errorf("kept entries are not the newest (-want +got):\n%s", diff)
	}
	// One entry larger than the cap is kept alone.
	big := strings.Repeat("z", 300)
	if err := appendHistory(path, limit, historyEntry{Text: big}); err != nil {
		t.Fatal(err)
	}
	if got, _ := readHistory(path, historyTail); !cmp.Equal(got, []string{big}) {
		t.Errorf("after an oversized entry: %d entries", len(got))
	}
}
