package recording_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// TestRecordsWhatAResumeNeeds: a turn recorded through the adapter loads
// back with its history (secrets masked), transcript, ledger and how the
// turn ended.
func TestRecordsWhatAResumeNeeds(t *testing.T) {
	const secret = "sk-test-canary-0000"
	r, err := rollout.Create(t.Context(), t.TempDir(), rollout.SessionMeta{ID: "rec-1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rec := recording.New(r, redact.New(secret))
	sink := recording.LedgerSink(r)
	steps := []error{
		rec.RecordEvent(session.TurnStarted{Input: "use " + secret}),
		rec.RecordItems(transport.UserMessage("use " + secret)),
		sink(session.LedgerEntry{CallID: "c1", Name: "exec_command", State: session.CallStarted}),
		rec.RecordEvent(session.MessageDone{Text: "done"}),
		rec.RecordEvent(session.TurnCompleted{}),
		rec.Sync(),
		r.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	ro, err := rollout.Load(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.History) != 1 || strings.Contains(string(ro.History[0].Raw), secret) || !strings.Contains(ro.History[0].Text(), "use ") {
		t.Errorf("history = %v; want the message with the secret masked", ro.History)
	}
	if ro.LastTurn != rollout.TurnCompleted || ro.Title == "" || strings.Contains(ro.Title, secret) {
		t.Errorf("last turn %q, title %q", ro.LastTurn, ro.Title)
	}
	if len(ro.Ledger) != 1 || ro.Ledger[0].State != string(session.CallStarted) {
		t.Errorf("ledger = %v", ro.Ledger)
	}
}

// TestRecordsMalformedEventsMasked: a warning about a server event agent
// could not read keeps the event in the rollout, secrets masked; agent's
// own warnings are not recorded.
func TestRecordsMalformedEventsMasked(t *testing.T) {
	const secret = "sk-test-canary-1111"
	r, err := rollout.Create(t.Context(), t.TempDir(), rollout.SessionMeta{ID: "rec-2"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rec := recording.New(r, redact.New(secret))
	raw := `{"type":"response.output_item.done","item":{"type":"message","id":"m0","content":"echo ` + secret + `"}}`
	for i, err := range []error{
		rec.RecordEvent(session.Warning{Message: "the server sent response.output_item.done (item m0) that agent could not read", Raw: []byte(raw)}),
		rec.RecordEvent(session.Warning{Message: "remote compaction failed"}),
		rec.Sync(), r.Close(),
	} {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	ro, err := rollout.Load(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.Events) != 1 || ro.Events[0].Type != rollout.EventMalformed {
		t.Fatalf("events = %+v; want the one malformed event", ro.Events)
	}
	got := string(ro.Events[0].Raw)
	if strings.Contains(got, secret) || !strings.Contains(got, `"id":"m0"`) {
		t.Errorf("raw = %s; want the event with the secret masked", got)
	}
}
