package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

var errDiskFull = errors.New("write rollout.jsonl: no space left on device")

// failingRecorder records nothing durably once broken: every call fails
// with errDiskFull, the way a rollout file on a full disk does.
type failingRecorder struct {
	mu     sync.Mutex
	broken bool
	syncs  int
}

func (f *failingRecorder) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken {
		return errDiskFull
	}
	return nil
}
func (f *failingRecorder) RecordItems(...transport.Item) error { return f.fail() }
func (f *failingRecorder) RecordEvent(session.Event) error     { return f.fail() }
func (f *failingRecorder) Sync() error {
	f.mu.Lock()
	f.syncs++
	f.mu.Unlock()
	return f.fail()
}
func (f *failingRecorder) breakNow() { f.mu.Lock(); f.broken = true; f.mu.Unlock() }

func withFailingRecorder(r *failingRecorder, ledgerSink func(session.LedgerEntry) error) option {
	return func(_ *provider.Info, o *session.Options) {
		o.Recorder = r
		o.Ledger = session.NewLedger(ledgerSink)
	}
}

func notSaved(evs []session.Event) []string {
	var out []string
	for _, ev := range evs {
		if w, ok := ev.(session.Warning); ok && w.NotSaved {
			out = append(out, w.Message)
		}
	}
	return out
}

// TestCallWhoseStartIsNotDurableDoesNotRun: the disk fills before a tool
// call starts. The command never runs, the model is told why, the user is
// warned, and the failure is announced as "no longer saved" once.
func TestCallWhoseStartIsNotDurableDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	rec := &failingRecorder{}
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "touch ran"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	}, withTools(t, dir, "never", nil), withFailingRecorder(rec, func(session.LedgerEntry) error { return nil }))
	// The disk fills as the model's call arrives: the start cannot be made
	// durable.
	var events []session.Event
	err := h.sess.Turn(t.Context(), "go", func(ev session.Event) {
		if _, ok := ev.(session.ToolCallBegin); ok {
			rec.breakNow()
		}
		events = append(events, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Fatal("the command ran although its start could not be recorded")
	}
	out := outputOf(t, h.srv.Requests()[1], "call_1")
	if !strings.Contains(out, "This call was not run") || !strings.Contains(out, "no space left on device") {
		t.Errorf("output sent to the model = %q; want it to say the call was not run and why", out)
	}
	warns := notSaved(events)
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "the session is no longer being saved: ") ||
		!strings.Contains(warns[1], "tool call call_1 (exec_command) was not run") {
		t.Errorf("not-saved warnings = %q; want one session warning, then the refused call", warns)
	}
	if !errors.Is(h.sess.SaveError(), errDiskFull) {
		t.Errorf("SaveError = %v; want the disk error", h.sess.SaveError())
	}
	// A second turn fails to save again: no second announcement.
	events = nil
	h.srv.Append(rt.Reply("r3", "m3", "again"))
	if err := h.sess.Turn(t.Context(), "more", func(ev session.Event) { events = append(events, ev) }); err != nil {
		t.Fatal(err)
	}
	if w := notSaved(events); len(w) != 0 {
		t.Errorf("second turn warned again: %q", w)
	}
}

// TestLedgerSinkFailureRefusesTheCall: the ledger's sink (the rollout's
// ledger line) fails; the call does not run.
func TestLedgerSinkFailureRefusesTheCall(t *testing.T) {
	dir := t.TempDir()
	sink := func(e session.LedgerEntry) error {
		if e.State == session.CallStarted {
			return errDiskFull
		}
		return nil
	}
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "touch ran"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	}, withTools(t, dir, "never", nil), withFailingRecorder(&failingRecorder{}, sink))
	if err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Fatal("the command ran although its start could not be recorded")
	}
	if out := outputOf(t, h.srv.Requests()[1], "call_1"); !strings.Contains(out, "This call was not run") {
		t.Errorf("output = %q", out)
	}
}

// TestResumedCallsWithoutOutput: a resumed history holds calls whose
// outputs were never recorded. Only a call that certainly never started is
// "aborted"; everything that may have run is of unknown outcome.
func TestResumedCallsWithoutOutput(t *testing.T) {
	call := func(id string) transport.Item {
		return transport.Item{Type: "function_call", CallID: id, Name: "exec_command", Arguments: `{"cmd":"x"}`,
			Raw: []byte(`{"type":"function_call","call_id":"` + id + `","name":"exec_command","arguments":"{}"}`)}
	}
	ledger := session.NewLedger(nil)
	ledger.Restore([]session.LedgerEntry{
		{CallID: "requested", State: session.CallRequested},
		{CallID: "approved", State: session.CallApproved},
		{CallID: "started", State: session.CallStarted},
		{CallID: "finished", State: session.CallFinished},
		{CallID: "declined", State: session.CallDeclined},
	})
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "ok")}, func(_ *provider.Info, o *session.Options) {
		o.Resumed = []transport.Item{transport.UserMessage("go"),
			call("requested"), call("approved"), call("started"), call("finished"), call("declined")}
		o.Ledger = ledger
	})
	if err := h.turn(t, "continue"); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[0]
	got := map[string]string{}
	for _, id := range []string{"requested", "approved", "started", "finished", "declined"} {
		o := outputOf(t, req, id)
		switch {
		case o == "aborted":
			got[id] = "aborted"
		case strings.Contains(o, "unknown"):
			got[id] = "unknown"
		default:
			got[id] = o
		}
	}
	want := map[string]string{"requested": "aborted", "approved": "unknown", "started": "unknown",
		"finished": "unknown", "declined": "aborted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs for calls without one (-want +got):\n%s", diff)
	}
}
