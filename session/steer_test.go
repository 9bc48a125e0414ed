package session_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// steerTurn runs a turn on h, steering it with input once the server
// holds its first request at the barrier "steer".
func steerTurn(t *testing.T, h *harness, input string) (steerErr, turnErr error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.turn(t, "first ask") }()
	<-h.srv.Reached("steer")
	steerErr = h.sess.Steer(input)
	h.srv.Release()
	return steerErr, <-done
}

// TestSteerAddsInputToTheNextRequest: input given to a running turn is
// recorded after the tool call's output and sent with the turn's next
// request, once; after the turn, Steer says no turn runs.
func TestSteerAddsInputToTheNextRequest(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("steer"), rt.Stall(), execCall("fc1", "c1", "echo hi"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := h.sess.Steer("too early"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("Steer before any turn: %v; want ErrNoTurn", err)
	}
	steerErr, err := steerTurn(t, h, "also say bye")
	if steerErr != nil || err != nil {
		t.Fatalf("steer: %v, turn: %v", steerErr, err)
	}
	types := inputTypes(t, h.srv)
	if len(types) != 2 {
		t.Fatalf("%d requests; want 2", len(types))
	}
	last := types[1][len(types[1])-3:]
	if !slices.Equal(last, []string{"function_call:c1", "function_call_output:c1", "message"}) {
		t.Errorf("second request ends with %v; want the call, its output, then the user's message", last)
	}
	msgs, _ := rt.InputMessages(h.srv.Requests()[1].Body)
	if got := strings.Join(msgs[len(msgs)-1].Text, ""); got != "also say bye" {
		t.Errorf("last message %q", got)
	}
	if n := strings.Count(string(h.srv.Requests()[0].Body), "also say bye"); n != 0 {
		t.Errorf("the first request carried the steer")
	}
	hist := h.sess.History()
	if it := hist[len(hist)-2]; it.Role != "user" || it.Origin != transport.OriginSteer {
		t.Errorf("the steered message is recorded as %+v; want a user message of origin steer (not a turn's start)", it)
	}
	if err := h.sess.Steer("too late"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("Steer after the turn: %v; want ErrNoTurn", err)
	}
}

// TestSteerAfterTheAnswerGoesOn: a turn whose model answered without a
// tool call while input was added sends another request with it.
func TestSteerAfterTheAnswerGoesOn(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("steer"), rt.Stall(), rt.MessageDone("m1", "first answer"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "second answer"),
	})
	steerErr, err := steerTurn(t, h, "and one more thing")
	if steerErr != nil || err != nil {
		t.Fatalf("steer: %v, turn: %v", steerErr, err)
	}
	if got := h.messages(); !slices.Equal(got, []string{"first answer", "second answer"}) {
		t.Errorf("messages %q", got)
	}
	msgs, _ := rt.InputMessages(h.srv.Requests()[1].Body)
	if got := strings.Join(msgs[len(msgs)-1].Text, ""); got != "and one more thing" {
		t.Errorf("the second request ends with %q", got)
	}
}

// TestSteerNotSentIsSaid: input added to a turn that then fails is named
// in a warning, not lost silently.
func TestSteerNotSentIsSaid(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("steer"), rt.Stall(), rt.Failed("r1", "invalid_prompt", "bad prompt")),
	})
	steerErr, err := steerTurn(t, h, "lost input")
	if steerErr != nil || err == nil {
		t.Fatalf("steer: %v, turn: %v", steerErr, err)
	}
	var warned bool
	for _, ev := range h.events {
		if w, ok := ev.(session.Warning); ok && strings.Contains(w.Message, "lost input") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning names the input not sent: %v", h.events)
	}
}
