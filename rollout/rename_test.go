package rollout_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentcli/agent/rollout"
)

// TestRename: a renamed session is found by its name (the newest of two
// sharing it, before any id prefix), lists its name, keeps it when it is
// resumed and after the index is rebuilt from the files, and loads with
// it; a bad name is refused and nothing is recorded.
func TestRename(t *testing.T) {
	home := fixture(t) // aaa-1, bbb-1, aab-2
	rename := func(id, name string) {
		t.Helper()
		r, err := rollout.Open(t.Context(), mustFind(t, home, id).Path)
		must(t, err)
		must(t, r.Rename(name))
		must(t, r.Close())
	}
	rename("aaa-1", "  fix the parser ")
	if e := mustFind(t, home, "fix the parser"); e.ID != "aaa-1" || e.Name != "fix the parser" || e.Label() != "fix the parser" || e.Title != "first in p" {
		t.Errorf("Find(name) = %+v", e)
	}
	rename("bbb-1", "aa") // a name that is also a prefix of two ids
	if e := mustFind(t, home, "aa"); e.ID != "bbb-1" {
		t.Errorf("Find(aa) = %s; want the session named aa", e.ID)
	}
	rename("aab-2", "fix the parser") // the newest of a shared name wins
	if e := mustFind(t, home, "fix the parser"); e.ID != "aab-2" {
		t.Errorf("Find(shared name) = %s; want aab-2, the newest", e.ID)
	}

	// Resuming without a rename keeps the name in the index.
	r, err := rollout.Open(t.Context(), mustFind(t, home, "bbb-1").Path)
	must(t, err)
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	must(t, r.Close())
	if e := mustFind(t, home, "bbb-1"); e.Name != "aa" {
		t.Errorf("after a resume, name = %q", e.Name)
	}
	ro, err := rollout.Load(mustFind(t, home, "aaa-1").Path)
	must(t, err)
	if ro.Name != "fix the parser" {
		t.Errorf("Load: name = %q", ro.Name)
	}

	must(t, os.Remove(indexPath(home)))
	es, err := rollout.List(t.Context(), home, "", true, 0)
	must(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.ID+"="+e.Name)
	}
	if got := strings.Join(names, " "); got != "bbb-1=aa aab-2=fix the parser aaa-1=fix the parser" {
		t.Errorf("names after a rebuild: %s", got)
	}

	r, err = rollout.Open(t.Context(), mustFind(t, home, "aaa-1").Path)
	must(t, err)
	defer r.Close()
	for _, bad := range []string{"", "   ", "two\nlines", strings.Repeat("x", 81)} {
		if err := r.Rename(bad); err == nil {
			t.Errorf("Rename(%q) was accepted", bad)
		}
	}
	must(t, r.Close())
	ro, err = rollout.Load(r.Path())
	must(t, err)
	if ro.Name != "fix the parser" {
		t.Errorf("a refused name was recorded: %q", ro.Name)
	}
	if _, err := rollout.Find(t.Context(), home, "no such name"); !errors.Is(err, rollout.ErrNotFound) {
		t.Errorf("Find(unknown name) = %v", err)
	}
}
