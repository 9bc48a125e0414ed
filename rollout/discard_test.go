package rollout_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// TestDiscard: a session created and left without an event (its start and
// context only) is removed by Discard, file, lock and index record; one
// with a message, a name, or one resumed by Open is only closed.
func TestDiscard(t *testing.T) {
	home := fixture(t) // aaa-1, bbb-1, aab-2; the index is built
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	create := func(id string) *rollout.Recorder {
		t.Helper()
		r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: id, Cwd: "/p"}, now)
		must(t, err)
		must(t, r.AppendItems(transport.UserMessage("<environment_context>")))
		return r
	}
	blank := create("ccc-3")
	must(t, blank.Sync())
	gone, err := blank.Discard()
	if err != nil || !gone {
		t.Fatalf("Discard of a blank session = %v, %v; want true", gone, err)
	}
	for _, p := range []string{blank.Path(), blank.Path() + ".lock"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Discard: %v", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "sessions", "index.jsonl")); err != nil || strings.Contains(string(b), "ccc-3") {
		t.Errorf("the index still names the discarded session (%v):\n%s", err, b)
	}
	if _, err := rollout.Find(t.Context(), home, "ccc-3"); !errors.Is(err, rollout.ErrNotFound) {
		t.Errorf("Find(ccc-3) after Discard: %v", err)
	}

	spoken := create("ddd-4")
	must(t, spoken.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "hello"}))
	named := create("eee-5")
	must(t, named.Rename("kept"))
	resumed, err := rollout.Open(t.Context(), mustFind(t, home, "aaa-1").Path)
	must(t, err)
	for _, r := range []*rollout.Recorder{spoken, named, resumed} {
		if gone, err := r.Discard(); err != nil || gone {
			t.Errorf("Discard of %s = %v, %v; want it kept", r.ID(), gone, err)
		}
		if _, err := os.Stat(r.Path()); err != nil {
			t.Errorf("%s is gone: %v", r.ID(), err)
		}
		if e := mustFind(t, home, r.ID()); e.Path != r.Path() {
			t.Errorf("Find(%s) = %+v", r.ID(), e)
		}
	}
	if gone, err := blank.Discard(); gone || err != nil {
		t.Errorf("a second Discard = %v, %v", gone, err)
	}
}
