package batch

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

func testOptions(out, stderr *bytes.Buffer, total int, prompt func(context.Context, Item) Result) Options {
	now := func() time.Time { return time.Time{} }
	return Options{Jobs: 2, Prompt: prompt, Results: NewSink(out), Progress: NewProgress(stderr, false, total, now), Stderr: stderr}
}

// TestRunExitPriority: every prompt's result is written once, and the
// batch exits with the most urgent class among them.
func TestRunExitPriority(t *testing.T) {
	class := map[string]int{"a": exitcode.OK, "b": exitcode.Failed, "c": exitcode.Auth, "d": exitcode.OK}
	var out, stderr bytes.Buffer
	o := testOptions(&out, &stderr, len(class), func(ctx context.Context, it Item) Result {
		if class[it.ID] == exitcode.OK {
			return Result{ID: it.ID, Status: StatusCompleted}
		}
		return Failed(ctx, it.ID, &exitcode.Error{Code: class[it.ID], Err: errors.New("no")})
	})
	o.Skipped = 2
	err := Run(context.Background(), []Item{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}, o)
	if got := exitcode.Of(err); got != exitcode.Auth {
		t.Fatalf("exit %d (%v); want %d", got, err, exitcode.Auth)
	}
	if want := "batch: 2 completed (+2 earlier), 1 failed (exit 3), 1 failed (exit 1)"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	if n := strings.Count(out.String(), "\n"); n != 4 {
		t.Errorf("%d result lines; want 4:\n%s", n, out.String())
	}
}

// TestRunAllCompleted: a batch whose prompts all completed exits 0 and
// says so on stderr.
func TestRunAllCompleted(t *testing.T) {
	var out, stderr bytes.Buffer
	o := testOptions(&out, &stderr, 1, func(ctx context.Context, it Item) Result {
		return Result{ID: it.ID, Status: StatusCompleted}
	})
	if err := Run(context.Background(), []Item{{ID: "a"}}, o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(stderr.String(), "agent: batch: 1 completed\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestRunInterrupted: once ctx ends, no prompt starts, and the batch
// exits 130 counting the prompts it did not start.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, stderr bytes.Buffer
	started := 0
	o := testOptions(&out, &stderr, 3, func(ctx context.Context, it Item) Result {
		started++
		cancel()
		return Failed(ctx, it.ID, ctx.Err())
	})
	o.Jobs = 1
	err := Run(ctx, []Item{{ID: "a"}, {ID: "b"}, {ID: "c"}}, o)
	if got := exitcode.Of(err); got != exitcode.Interrupted || started != 1 {
		t.Fatalf("exit %d (%v), %d started; want 130, 1", got, err, started)
	}
	if want := "batch interrupted: 0 completed, 1 interrupted (exit 130); 2 not started"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
}

// fakeSession plays a turn's events and its outcome.
type fakeSession struct {
	events  []session.Event
	err     error
	saveErr error
}

func (s fakeSession) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	for _, ev := range s.events {
		emit(ev)
	}
	return s.err
}

func (s fakeSession) Usage() transport.Usage { return transport.Usage{OutputTokens: 7} }
func (s fakeSession) Cost() *float64         { return nil }
func (s fakeSession) SaveError() error       { return s.saveErr }

func TestRunPrompt(t *testing.T) {
	p := NewProgress(&bytes.Buffer{}, false, 1, time.Now)
	retry := session.Retry{Retry: modelclient.Retry{Layer: "stream"}}
	usage := execprint.UsageOf(transport.Usage{OutputTokens: 7}, nil) // fakeSession's
	tests := []struct {
		name string
		sess fakeSession
		want Result
	}{
		{"completed after a retry", fakeSession{events: []session.Event{retry, session.MessageDone{Text: "cut"}, retry, session.MessageDone{Text: "answer"}}},
			Result{Status: StatusCompleted, ExitClass: exitcode.OK, FinalMessage: "answer", Retries: 2}},
		{"not saved", fakeSession{events: []session.Event{session.MessageDone{Text: "answer"}}, saveErr: errors.New("disk full")},
			Result{Status: StatusCompleted, ExitClass: exitcode.NotSaved, FinalMessage: "answer",
				Error: "the turn completed, but the session was not saved: disk full"}},
		{"quota", fakeSession{err: &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindQuota, Message: "out of credit"}}}},
			Result{Status: StatusFailed, ExitClass: exitcode.Quota}},
		{"interrupted", fakeSession{err: &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindCanceled}}}},
			Result{Status: StatusInterrupted, ExitClass: exitcode.Interrupted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RunPrompt(context.Background(), tt.sess, "sess-1", Item{ID: "a", Prompt: "hi"}, p)
			tt.want.ID, tt.want.SessionID, tt.want.Usage = "a", "sess-1", usage
			if tt.sess.err != nil {
				tt.want.Error = tt.sess.err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunExitOrder has one case per rule of the batch's exit code: 0 when
// every prompt completed, else the most urgent class among the results,
// in the order 130, 2, 3, 4, 5, 1, 6.
func TestRunExitOrder(t *testing.T) {
	tests := []struct {
		name    string
		classes []int
		want    int
	}{
		{"all completed: 0", []int{exitcode.OK, exitcode.OK}, exitcode.OK},
		{"completed, not saved: 6", []int{exitcode.OK, exitcode.NotSaved}, exitcode.NotSaved},
		{"a failed turn beats not saved: 1", []int{exitcode.NotSaved, exitcode.Failed}, exitcode.Failed},
		{"exhausted retries beat a failed turn: 5", []int{exitcode.Failed, exitcode.Exhausted}, exitcode.Exhausted},
		{"quota beats exhausted: 4", []int{exitcode.Exhausted, exitcode.Quota, exitcode.Failed}, exitcode.Quota},
		{"auth beats quota: 3", []int{exitcode.Quota, exitcode.Auth}, exitcode.Auth},
		{"usage beats auth: 2", []int{exitcode.Auth, exitcode.Usage}, exitcode.Usage},
		{"interrupted beats everything: 130", []int{exitcode.Usage, exitcode.Interrupted, exitcode.OK}, exitcode.Interrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var items []Item
			class := map[string]int{}
			for i, c := range tt.classes {
				id := string(rune('a' + i))
				items = append(items, Item{ID: id})
				class[id] = c
			}
			var out, stderr bytes.Buffer
			o := testOptions(&out, &stderr, len(items), func(ctx context.Context, it Item) Result {
				switch c := class[it.ID]; c {
				case exitcode.OK:
					return Result{ID: it.ID, Status: StatusCompleted}
				case exitcode.NotSaved:
					return Result{ID: it.ID, Status: StatusCompleted, ExitClass: c}
				default:
					return Failed(ctx, it.ID, &exitcode.Error{Code: c, Err: errors.New("no")})
				}
			})
			err := Run(context.Background(), items, o)
			if got := exitcode.Of(err); got != tt.want {
				t.Errorf("exit %d (%v); want %d", got, err, tt.want)
			}
			if got := len(readResults(t, out.String())); got != len(items) {
				t.Errorf("%d results; want %d", got, len(items))
			}
		})
	}
}
