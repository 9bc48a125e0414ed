package rollout_test

import (
	"testing"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// TestOriginsRoundTrip: an item's origin (session context, a summary) is
// recorded beside its raw JSON and read back, also inside a compaction.
func TestOriginsRoundTrip(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "origins"}, time.Now())
	must(t, err)
	ctx := transport.UserMessage("rules")
	ctx.Origin = transport.OriginContext
	must(t, r.AppendItems(ctx, transport.UserMessage("hi")))
	sum := transport.UserMessage("summary")
	sum.Origin = transport.OriginSummary
	must(t, r.AppendCompacted(rollout.Compacted{Message: "s", ReplacementHistory: []transport.Item{ctx, transport.UserMessage("hi"), sum}}))
	must(t, r.AppendItems(transport.UserMessage("after")))
	must(t, r.Close())
	ro := load(t, r.Path())
	var got []transport.Origin
	for _, it := range ro.History {
		got = append(got, it.Origin)
	}
	want := []transport.Origin{transport.OriginContext, "", transport.OriginSummary, ""}
	if len(got) != len(want) {
		t.Fatalf("origins = %q; want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("origins = %q; want %q", got, want)
		}
	}
	if string(ro.History[0].Raw) != string(ctx.Raw) {
		t.Errorf("raw = %s; want the item's bytes verbatim", ro.History[0].Raw)
	}
}
