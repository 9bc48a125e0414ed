package rollout_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentcli/agent/rollout"
)

// FuzzLoad feeds arbitrary bytes to Load as a rollout file: it must never
// panic, and either refuse the file as not a rollout or load it.
func FuzzLoad(f *testing.F) {
	home := f.TempDir()
	r := create(f, home, meta("seed", "/p"), t0)
	must(f, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnStarted}))
	must(f, r.AppendItems(items(f, history...)...))
	must(f, r.AppendCompacted(rollout.Compacted{Message: "s", ReplacementHistory: items(f, history[0])}))
	must(f, r.AppendLedger(rollout.LedgerEntry{CallID: "c", Name: "n", State: "started"}))
	must(f, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	must(f, r.Close())
	seed, err := os.ReadFile(r.Path())
	must(f, err)
	f.Add(seed)
	f.Add(seed[:len(seed)-7])
	f.Add([]byte(metaLine() + "\n{\n" + lineOf("compacted", `{"replacement_history":[1,{"type":"x"}]}`)))
	f.Add([]byte(metaLine() + "\n" + lineOf("event_msg", `{"type":"token_count","total":{"input_tokens":"x"}}`)))
	f.Add([]byte("\n\n"))
	f.Add([]byte{})

	path := filepath.Join(f.TempDir(), "rollout.jsonl") // one worker runs one input at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		must(t, os.WriteFile(path, data, 0o600))
		ro, err := rollout.Load(path)
		if err != nil {
			if !errors.Is(err, rollout.ErrNoMeta) {
				t.Fatalf("Load = %v, want nil or ErrNoMeta", err)
			}
			return
		}
		for _, it := range ro.History {
			if len(it.Raw) == 0 {
				t.Fatal("history item without raw JSON")
			}
		}
	})
}
