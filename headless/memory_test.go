package headless

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/agentcli/agent/session"
)

// TestStepGCCollectsAfterBigSteps: a step that allocated 16 MiB is
// followed by a collection (the garbage is reused by the next request's
// body), a step that allocated little is not, and GOGC=off turns it off.
func TestStepGCCollectsAfterBigSteps(t *testing.T) {
	env := map[string]string{}
	step := StepGC(func(k string) string { return env[k] })
	step() // the allocations before the first step
	b := make([]byte, 16<<20)
	if !step() {
		t.Error("after 16 MiB allocated: no collection")
	}
	b = append(b[:0:0], make([]byte, 1<<20)...)
	if step() {
		t.Error("after 1 MiB allocated: a collection")
	}
	env["GOGC"] = "off"
	b = append(b[:0:0], make([]byte, 16<<20)...)
	if step() {
		t.Error("GOGC=off: a collection")
	}
	runtime.KeepAlive(b)
}

// TestRunTurnStepsAtResponseAndToolEnds: OnStep runs at the end of each
// message, response and tool call, not at the other events.
func TestRunTurnStepsAtResponseAndToolEnds(t *testing.T) {
	sess := &fakeSession{turns: []fakeTurn{{events: []session.Event{
		session.TurnStarted{}, session.ToolCallBegin{}, session.ResponseCompleted{},
		session.ToolCallEnd{}, session.TextDelta{Delta: "ok"}, session.MessageDone{Text: "ok"},
		session.ResponseCompleted{}, session.TurnCompleted{Requests: 2},
	}}}}
	steps := 0
	var stdout, stderr bytes.Buffer
	if err := RunTurn(context.Background(), sess, "hi", Options{Stdout: &stdout, Stderr: &stderr, OnStep: func() { steps++ }}); err != nil {
		t.Fatal(err)
	}
	if steps != 4 {
		t.Errorf("OnStep ran %d times; want 4 (two responses, a message, a tool call)", steps)
	}
}
