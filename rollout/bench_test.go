package rollout_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
