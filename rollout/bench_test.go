package rollout_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agentcli/agent/rollout"
)

// sessions10k writes 10,000 small rollout files (a meta line, a user
// message, an item) over 100 days and 50 working directories, and builds
// their index with a first lookup.
func sessions10k(b *testing.B) (home string) {
	b.Helper()
	home = b.TempDir()
	for i := range 10_000 {
		now := t0.Add(time.Duration(i) * 14 * time.Minute)
		id, err := uuid.NewV7()
		must(b, err)
		m := meta(id.String(), fmt.Sprintf("/work/project-%02d", i%50))
		m.Timestamp = now.UTC()
		mb, err := json.Marshal(m)
		must(b, err)
		msg := fmt.Sprintf(`{"type":"user_message","message":"task number %d"}`, i)
		body := lineOf("session_meta", string(mb)) + "\n" + lineOf("event_msg", msg) + "\n" + lineOf("response_item", history[0]) + "\n"
		dir := filepath.Join(home, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
		must(b, os.MkdirAll(dir, 0o700))
		name := fmt.Sprintf("rollout-%s-%s.jsonl", now.Format("2006-01-02T15-04-05"), id)
		must(b, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	es, err := rollout.List(b.Context(), home, "", true, 0)
	must(b, err)
	if len(es) != 10_000 {
		b.Fatalf("indexed %d sessions, want 10000", len(es))
	}
	return home
}

// BenchmarkLatest10k is "agent resume --last" with 10,000 sessions on disk.
func BenchmarkLatest10k(b *testing.B) {
	home := sessions10k(b)
	for _, bc := range []struct {
		name string
		cwd  string
		all  bool
	}{
		{"cwd", "/work/project-07", false},
		{"all", "", true},
		{"miss", "/no/sessions/here", false}, // falls back to walking the tree
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, err := rollout.Latest(b.Context(), home, bc.cwd, bc.all)
				if err != nil && (bc.name != "miss" || !errors.Is(err, rollout.ErrNotFound)) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRebuild10k is the worst case: the index is gone and every file
// is scanned.
func BenchmarkRebuild10k(b *testing.B) {
	home := sessions10k(b)
	for b.Loop() {
		must(b, os.Remove(indexPath(home)))
		if _, err := rollout.Latest(b.Context(), home, "", true); err != nil {
			b.Fatal(err)
		}
	}
}

// rollout100k writes one rollout of 100,000 history items: 25,000 turns
// of a user message, a command call, its output and an answer, each turn
// with its started, user_message and completed events.
func rollout100k(b *testing.B) (path string, size int64) {
	b.Helper()
	return rolloutOfTurns(b, 25_000)
}

// rolloutOfTurns writes a rollout of rollout100k's turns, turns of them.
func rolloutOfTurns(b testing.TB, turns int) (path string, size int64) {
	b.Helper()
	id, err := uuid.NewV7()
	must(b, err)
	mb, err := json.Marshal(meta(id.String(), "/work/project"))
	must(b, err)
	path = filepath.Join(b.TempDir(), "rollout-"+id.String()+".jsonl")
	f, err := os.Create(path)
	must(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, lineOf("session_meta", string(mb)))
	for t := range turns {
		fmt.Fprintln(w, lineOf("event_msg", `{"type":"turn_started"}`))
		fmt.Fprintln(w, lineOf("event_msg", fmt.Sprintf(`{"type":"user_message","message":"please run step %d"}`, t)))
		fmt.Fprintln(w, lineOf("response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":"please run step %d of the plan and tell me what happened"}]}`, t)))
		fmt.Fprintln(w, lineOf("response_item", fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"exec_command","arguments":"{\"cmd\":\"ls -la src/step%d\"}","status":"completed"}`, t, t, t)))
		fmt.Fprintln(w, lineOf("response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"total 8\ndrwxr-xr-x 2 user user 4096 Dec  3 10:00 .\n-rw-r--r-- 1 user user  120 Dec  3 10:00 main.go\n"}`, t)))
		fmt.Fprintln(w, lineOf("response_item", fmt.Sprintf(`{"content":[{"annotations":[],"text":"Step %d ran: the directory holds main.go and nothing else, so the next step can start.","type":"output_text"}],"id":"msg_%d","role":"assistant","status":"completed","type":"message"}`, t, t)))
		fmt.Fprintln(w, lineOf("event_msg", `{"type":"turn_completed"}`))
	}
	must(b, w.Flush())
	st, err := f.Stat()
	must(b, err)
	must(b, f.Close())
	return path, st.Size()
}

// BenchmarkLoad100k is the load of a resumed 100,000-item rollout: its
// time, what it allocates, and what it holds afterwards (live-B/op; the
// file's size is file-B).
func BenchmarkLoad100k(b *testing.B) {
	path, size := rollout100k(b)
	var live uint64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		ro, err := rollout.Load(path)
		must(b, err)
		if len(ro.History) != 100_000 {
			b.Fatalf("loaded %d items, want 100000", len(ro.History))
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		live = m1.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(ro)
	}
	b.ReportMetric(float64(live), "live-B/op")
	b.ReportMetric(float64(size), "file-B")
}

// TestLoadAllocatesWhatItKeeps: loading a long rollout allocates little
// more than the history and events it returns, in few allocations (its
// items' bytes in shared blocks, their strings views of them, no event
// decoded onto the heap, no slice grown and copied): 20,000 items and
// 15,000 events, 12,000 allocations at most (a call's arguments and a
// user message's text are strings of their own), 1.2× what the rollout
// holds. Before, each item
// was decoded by encoding/json into strings of its own and a line split
// between two reads of the counting pass made the events grow: 2.5× and
// 16 allocations per line.
func TestLoadAllocatesWhatItKeeps(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates on its own")
	}
	path, _ := rolloutOfTurns(t, 5_000)
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	ro, err := rollout.Load(path)
	runtime.ReadMemStats(&m1)
	must(t, err)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	if len(ro.History) != 20_000 || len(ro.Events) != 15_000 {
		t.Fatalf("loaded %d items and %d events; want 20000 and 15000", len(ro.History), len(ro.Events))
	}
	allocated, allocs := m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
	held := int64(m2.HeapAlloc) - int64(m0.HeapAlloc)
	runtime.KeepAlive(ro)
	t.Logf("allocated %d B in %d allocations, held %d B", allocated, allocs, held)
	if allocs > 12_000 {
		t.Errorf("Load made %d allocations; want at most 12000 for 20,000 items and 15,000 events", allocs)
	}
	if float64(allocated) > 1.2*float64(held) {
		t.Errorf("Load allocated %d B and holds %d B; want at most 1.2× what it holds", allocated, held)
	}
}

// TestLoadStateFoldsWhatLoadKeeps: LoadState hands the events Load keeps
// to its fold, in order, keeps none of them, and reads the rest of the
// rollout as Load does.
func TestLoadStateFoldsWhatLoadKeeps(t *testing.T) {
	path, _ := rolloutOfTurns(t, 50)
	full, err := rollout.Load(path)
	must(t, err)
	var folded []rollout.EventMsg
	ro, err := rollout.LoadState(path, func(ev rollout.EventMsg) { folded = append(folded, ev) })
	must(t, err)
	if ro.Events != nil {
		t.Errorf("LoadState kept %d events", len(ro.Events))
	}
	if !reflect.DeepEqual(folded, full.Events) {
		t.Errorf("LoadState folded %d events; Load kept %d (or others)", len(folded), len(full.Events))
	}
	ro.Events = full.Events
	if !reflect.DeepEqual(ro, full) {
		t.Errorf("LoadState read\n%+v\nLoad read\n%+v", ro, full)
	}
}
