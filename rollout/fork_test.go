package rollout_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/rollout"
)

func TestFork(t *testing.T) {
	home := t.TempDir()
	src := create(t, home, meta("src-1", "/p"), t0)
	tc := rollout.TurnContext{Cwd: "/p", ApprovalPolicy: "never", SandboxMode: "read-only", Model: "demo-1"}
	must(t, src.AppendTurnContext(tc))
	must(t, src.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "the task"}))
	its := items(t, history...)
	must(t, src.AppendItems(its[:2]...))
	must(t, src.AppendCompacted(rollout.Compacted{Message: "s", ReplacementHistory: its[1:2]}))
	must(t, src.AppendItems(its[2:]...))
	must(t, src.AppendLedger(rollout.LedgerEntry{CallID: "call-1", Name: "shell", State: "started"}))
	must(t, src.Close())
	sro := load(t, src.Path())

	r, err := rollout.Fork(t.Context(), home, sro, "fork-2", t0.Add(time.Minute))
	must(t, err)
	must(t, r.Close())
	if r.Path() == src.Path() || r.ID() != "fork-2" {
		t.Fatalf("fork path %s, id %s", r.Path(), r.ID())
	}
	fro := load(t, r.Path())
	if fro.Meta.ID != "fork-2" || fro.Meta.ForkedFromID != "src-1" || fro.Meta.Cwd != "/p" || fro.Meta.Model != "demo-1" {
		t.Errorf("fork meta = %+v", fro.Meta)
	}
	if want := t0.Add(time.Minute).UTC().Truncate(time.Millisecond); !fro.Meta.Timestamp.Equal(want) {
		t.Errorf("fork timestamp = %v, want %v", fro.Meta.Timestamp, want)
	}
	if diff := cmp.Diff(raws(sro.History), raws(fro.History)); diff != "" {
		t.Errorf("fork history (-src +fork):\n%s", diff)
	}
	if diff := cmp.Diff(sro.Ledger, fro.Ledger); diff != "" {
		t.Errorf("fork ledger (-src +fork):\n%s", diff)
	}
	if fro.TurnContext == nil || *fro.TurnContext != tc {
		t.Errorf("fork turn context = %+v", fro.TurnContext)
	}
	if len(fro.Warnings) != 0 {
		t.Errorf("fork warnings = %v", fro.Warnings)
	}
	// The source is untouched and both are listed; the fork has its title.
	if again := load(t, src.Path()); !cmp.Equal(raws(again.History), raws(sro.History)) {
		t.Error("source changed by Fork")
	}
	e := mustFind(t, home, "fork-2")
	if e.Path != r.Path() || e.Title != "the task" {
		t.Errorf("Find(fork-2) = %+v", e)
	}
	mustFind(t, home, "src-1")

	if diff := cmp.Diff(sro.Events[:1], fro.Events); diff != "" {
		t.Errorf("fork events (-want +got):\n%s", diff)
	}
	if _, err := rollout.Fork(t.Context(), home, sro, "fork-2", t0.Add(time.Minute)); err == nil {
		t.Error("Fork onto an existing rollout = nil error")
	}
}
