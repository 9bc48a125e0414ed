package rollout_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/rollout"
)

// session records one closed session started at t0+min minutes whose
// first user message is title, and returns its path.
func session(t *testing.T, home, id, cwd string, min int, title string) string {
	t.Helper()
	r := create(t, home, meta(id, cwd), t0.Add(time.Duration(min)*time.Minute))
	if title != "" {
		must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: title}))
	}
	if err := r.Close(); err != nil && !errors.Is(err, rollout.ErrIndex) {
		t.Fatal(err)
	}
	return r.Path()
}

func ids(es []rollout.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func indexPath(home string) string { return filepath.Join(home, "sessions", "index.jsonl") }

// fixture makes three sessions. The index is built by a lookup before the
// last one is created, so its record is appended by Create.
func fixture(t *testing.T) string {
	home := t.TempDir()
	session(t, home, "aaa-1", "/p", 0, "first in p")
	session(t, home, "bbb-1", "/q", 1, "in q")
	if _, err := rollout.List(t.Context(), home, "", true, 0); err != nil { // builds the index
		t.Fatal(err)
	}
	session(t, home, "aab-2", "/p/", 2, "second in p")
	return home
}

func TestLatest(t *testing.T) {
	home := fixture(t)
	e, err := rollout.Latest(t.Context(), home, "/p", false)
	must(t, err)
	if e.ID != "aab-2" || e.Title != "second in p" || e.Cwd != "/p/" || !strings.HasPrefix(e.Path, home) {
		t.Errorf("Latest(/p) = %+v", e)
	}
	if e, _ := rollout.Latest(t.Context(), home, "/q", false); e.ID != "bbb-1" {
		t.Errorf("Latest(/q) = %s, want bbb-1", e.ID)
	}
	if _, err := rollout.Latest(t.Context(), home, "/elsewhere", false); !errors.Is(err, rollout.ErrNotFound) {
		t.Errorf("Latest(/elsewhere) = %v, want ErrNotFound", err)
	}

	// Resuming a session makes it the latest.
	r, err := rollout.Open(t.Context(), mustFind(t, home, "bbb-1").Path)
	must(t, err)
	must(t, r.Close())
	if e, _ := rollout.Latest(t.Context(), home, "", true); e.ID != "bbb-1" {
		t.Errorf("Latest(all) after resuming bbb-1 = %s", e.ID)
	}
	if e, _ := rollout.Latest(t.Context(), home, "/p", false); e.ID != "aab-2" {
		t.Errorf("Latest(/p) after resuming bbb-1 = %s", e.ID)
	}
}

func mustFind(t *testing.T, home, id string) rollout.Entry {
	t.Helper()
	e, err := rollout.Find(t.Context(), home, id)
	must(t, err)
	return e
}

func TestList(t *testing.T) {
	home := fixture(t)
	tests := []struct {
		cwd   string
		all   bool
		limit int
		want  []string
	}{
		{"", true, 0, []string{"aab-2", "bbb-1", "aaa-1"}},
		{"", true, 2, []string{"aab-2", "bbb-1"}},
		{"/p", false, 0, []string{"aab-2", "aaa-1"}},
		{"/q/", false, 0, []string{"bbb-1"}},
	}
	for _, tt := range tests {
		es, err := rollout.List(t.Context(), home, tt.cwd, tt.all, tt.limit)
		must(t, err)
		if diff := cmp.Diff(tt.want, ids(es)); diff != "" {
			t.Errorf("List(%q, %v, %d) (-want +got):\n%s", tt.cwd, tt.all, tt.limit, diff)
		}
	}
	if es, err := rollout.List(t.Context(), t.TempDir(), "", true, 0); err != nil || len(es) != 0 {
		t.Errorf("List(empty home) = %v, %v", es, err)
	}
}

func TestFind(t *testing.T) {
	home := fixture(t)
	if e := mustFind(t, home, "bbb-1"); e.Cwd != "/q" || e.Title != "in q" {
		t.Errorf("Find(bbb-1) = %+v", e)
	}
	if e := mustFind(t, home, "bb"); e.ID != "bbb-1" {
		t.Errorf("Find(bb) = %s", e.ID)
	}
	var ae *rollout.AmbiguousError
	if _, err := rollout.Find(t.Context(), home, "aa"); !errors.As(err, &ae) || !cmp.Equal(ae.IDs, []string{"aab-2", "aaa-1"}) {
		t.Errorf("Find(aa) = %v, want AmbiguousError [aab-2 aaa-1]", err)
	}
	for _, id := range []string{"zzz", ""} {
		if _, err := rollout.Find(t.Context(), home, id); !errors.Is(err, rollout.ErrNotFound) {
			t.Errorf("Find(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestIndexRebuild(t *testing.T) {
	for name, damage := range map[string]func(path string) error{
		"deleted":   os.Remove,
		"corrupt":   func(p string) error { return os.WriteFile(p, []byte("{\"id\":\"aaa-1\"\n\x00\x01\n"), 0o600) },
		"torn tail": func(p string) error { appendRaw(t, p, `{"id":"zz`); return nil },
	} {
		t.Run(name, func(t *testing.T) {
			home := fixture(t)
			must(t, damage(indexPath(home)))
			es, err := rollout.List(t.Context(), home, "", true, 0)
			must(t, err)
			if diff := cmp.Diff([]string{"aab-2", "bbb-1", "aaa-1"}, ids(es)); diff != "" {
				t.Errorf("List after damage (-want +got):\n%s", diff)
			}
			if es[0].Title != "second in p" {
				t.Errorf("rebuilt title = %q", es[0].Title)
			}
			data, err := os.ReadFile(indexPath(home))
			must(t, err)
			if n := strings.Count(string(data), "\n"); n != 3 {
				t.Errorf("rewritten index has %d lines, want 3:\n%s", n, data)
			}
			checkMode(t, indexPath(home), 0o600)
		})
	}
}

func TestIndexMissingRecord(t *testing.T) {
	home := fixture(t)
	// A session whose index record was never written (a crash between
	// the file and the index).
	data, err := os.ReadFile(indexPath(home))
	must(t, err)
	path := session(t, home, "ccc-3", "/r", 3, "lost")
	must(t, os.WriteFile(indexPath(home), data, 0o600))

	if e := mustFind(t, home, "ccc"); e.Path != path || e.Title != "lost" {
		t.Errorf("Find(ccc) = %+v, want %s", e, path)
	}
	// The scan healed the index.
	data, err = os.ReadFile(indexPath(home))
	must(t, err)
	if !strings.Contains(string(data), `"id":"ccc-3"`) {
		t.Errorf("index not healed:\n%s", data)
	}

	// Latest misses in /s at first, then finds the unindexed one.
	data, err = os.ReadFile(indexPath(home))
	must(t, err)
	session(t, home, "ddd-4", "/s", 4, "")
	must(t, os.WriteFile(indexPath(home), data, 0o600))
	if e, err := rollout.Latest(t.Context(), home, "/s", false); err != nil || e.ID != "ddd-4" {
		t.Errorf("Latest(/s) = %v, %v; want ddd-4", e.ID, err)
	}
}

func TestIndexSkipsDeletedFiles(t *testing.T) {
	home := fixture(t)
	must(t, os.Remove(mustFind(t, home, "aab-2").Path))
	if e, _ := rollout.Latest(t.Context(), home, "/p", false); e.ID != "aaa-1" {
		t.Errorf("Latest(/p) = %s, want aaa-1", e.ID)
	}
	if _, err := rollout.Find(t.Context(), home, "aab-2"); !errors.Is(err, rollout.ErrNotFound) {
		t.Errorf("Find(deleted) = %v, want ErrNotFound", err)
	}
}

func TestIndexTurnEnds(t *testing.T) {
	home := fixture(t)
	r := create(t, home, meta("eee-5", "/p"), t0.Add(time.Hour))
	defer r.Close()
	if e, _ := rollout.Latest(t.Context(), home, "/p", false); e.ID != "eee-5" || e.Title != "" {
		t.Errorf("Latest after Create = %+v", e)
	}
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: strings.Repeat("word ", 40)}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	must(t, r.Sync())
	e, _ := rollout.Latest(t.Context(), home, "/p", false)
	if e.ID != "eee-5" || len([]rune(e.Title)) != 80 || !strings.HasSuffix(e.Title, "…") {
		t.Errorf("Latest after a turn = %+v", e)
	}
	if e.Updated.Before(e.Created) {
		t.Errorf("Updated %v before Created %v", e.Updated, e.Created)
	}

	// Many turn ends: the index is compacted back to one record a session.
	for range 300 {
		must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
		must(t, r.Flush(true))
	}
	if _, err := rollout.List(t.Context(), home, "", true, 0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(indexPath(home))
	must(t, err)
	if n := strings.Count(string(data), "\n"); n != 4 {
		t.Errorf("index has %d lines after compaction, want 4", n)
	}
	if e2, _ := rollout.Latest(t.Context(), home, "/p", false); e2.Title != e.Title {
		t.Errorf("title after compaction = %q, want %q", e2.Title, e.Title)
	}
}

func TestIndexWriteFailure(t *testing.T) {
	home := fixture(t)
	r := create(t, home, meta("fff-6", "/p"), t0.Add(time.Hour))
	defer r.Close()
	// An index that cannot be appended to (here: a directory in its place).
	must(t, os.Remove(indexPath(home)))
	must(t, os.Mkdir(indexPath(home), 0o700))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "kept"}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	if err := r.Sync(); !errors.Is(err, rollout.ErrIndex) {
		t.Fatalf("Sync = %v, want ErrIndex", err)
	}
	if ro := load(t, r.Path()); ro.LastTurn != rollout.TurnCompleted {
		t.Errorf("lines not durable: LastTurn = %q", ro.LastTurn)
	}
	// Lookups still work (by a scan), and the late record is written once
	// the index is back.
	if e, err := rollout.Latest(t.Context(), home, "/p", false); err != nil || e.ID != "fff-6" {
		t.Errorf("Latest with a broken index = %v, %v", e.ID, err)
	}
	must(t, os.Remove(indexPath(home)))
	if _, err := rollout.List(t.Context(), home, "", true, 0); err != nil {
		t.Fatal(err)
	}
	must(t, r.Sync())
	data, err := os.ReadFile(indexPath(home))
	must(t, err)
	if n := strings.Count(string(data), `"id":"fff-6"`); n != 2 {
		t.Errorf("index has %d records of fff-6, want 2 (rebuild + late record):\n%s", n, data)
	}
}

func TestIndexEscapes(t *testing.T) {
	home := t.TempDir()
	title := `say "hi" <b> & é ` + "\u2028"
	cwd := `/tmp/dir with "quotes" and é`
	session(t, home, "esc-1", cwd, 0, title)
	for range 2 { // rebuilt, then read back from the index
		e, err := rollout.Latest(t.Context(), home, cwd, false)
		must(t, err)
		if e.Title != strings.TrimSpace(title) || e.Cwd != cwd {
			t.Errorf("Latest = %+v", e)
		}
	}
}
