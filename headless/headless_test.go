package headless

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

func TestWaitForReset(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	paused := &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: now.Add(time.Hour)}}
	limited := &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindUsageLimit, ResetsAt: now.Add(2 * time.Hour)}}}
	tests := []struct {
		name  string
		err   error
		limit time.Duration
		want  time.Duration
		ok    bool
	}{
		{"paused within the limit", paused, 2 * time.Hour, time.Hour, true},
		{"paused past the limit", paused, 30 * time.Minute, 0, false},
		{"not allowed to wait", paused, 0, 0, false},
		{"usage limit's reset", limited, DefaultWaitForReset, 2 * time.Hour, true},
		{"reset already past", &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: now.Add(-time.Minute)}}, time.Hour, 0, true},
		{"no time given", &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindQuota}}}, time.Hour, 0, false},
		{"not a turn's failure", errors.New("disk full"), time.Hour, 0, false},
		{"completed", nil, time.Hour, 0, false},
	}
	for _, tt := range tests {
		got, ok := waitForReset(tt.err, tt.limit, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: waitForReset = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadPrompt(t *testing.T) {
	tests := []struct {
		name    string
		stdin   string
		tty     bool
		args    []string
		want    string
		wantErr string
	}{
		{name: "argument, terminal", tty: true, args: []string{"hi"}, want: "hi"},
		{name: "argument and piped input", stdin: "log line\n", args: []string{"explain"}, want: "explain\n\n<stdin>\nlog line\n</stdin>"},
		{name: "argument, empty pipe", args: []string{"hi"}, want: "hi"},
		{name: "stdin", stdin: "  from stdin \n", want: "from stdin"},
		{name: "dash", stdin: "from stdin", args: []string{"-"}, want: "from stdin"},
		{name: "no prompt on a terminal", tty: true, wantErr: "no prompt: pass one"},
		{name: "empty stdin", stdin: "\n", wantErr: "standard input was empty"},
	}
	for _, tt := range tests {
		got, err := ReadPrompt(strings.NewReader(tt.stdin), tt.tty, tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v; want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: ReadPrompt = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestStdinHasData(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	regular, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	for _, c := range []struct {
		name string
		r    io.Reader
		want bool
	}{{"/dev/null", devNull, false}, {"a file", regular, true}, {"a reader", strings.NewReader(""), true}} {
		if got := StdinHasData(c.r); got != c.want {
			t.Errorf("%s: StdinHasData = %v; want %v", c.name, got, c.want)
		}
	}
}

// fakeSession answers each turn from its list: the events, then the error.
type fakeSession struct {
	turns   []fakeTurn
	prompts []string
	saveErr error
}

type fakeTurn struct {
	events []session.Event
	err    error
}

func (s *fakeSession) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	s.prompts = append(s.prompts, input)
	t := s.turns[0]
	s.turns = s.turns[1:]
	for _, ev := range t.events {
		emit(ev)
	}
	return t.err
}

func (s *fakeSession) SaveError() error { return s.saveErr }

func answer(text string) fakeTurn {
	return fakeTurn{events: []session.Event{
		session.TurnStarted{}, session.TextDelta{Delta: text}, session.MessageDone{Text: text},
		session.ResponseCompleted{}, session.TurnCompleted{Requests: 1},
	}}
}

// TestRunTurnWaitsForReset: a turn paused until a time within
// WaitForReset is waited for once, on the injected clock, and continued
// with the continuation prompt; the answer is on stdout and in -o.
func TestRunTurnWaitsForReset(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sess := &fakeSession{turns: []fakeTurn{{err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: now.Add(time.Hour)}}}, answer("done")}}
	var stdout, stderr bytes.Buffer
	var sleeps []time.Duration
	streams := 0
	last := filepath.Join(t.TempDir(), "last.txt")
	err := RunTurn(context.Background(), sess, "hi", Options{
		Stdout: &stdout, Stderr: &stderr, SessionID: "s1", WaitForReset: 2 * time.Hour,
		Continue:    func() string { return "continue" },
		LastMessage: last,
		Now:         func() time.Time { return now },
		Sleep:       func(ctx context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil },
		OnStream:    func() { streams++ },
	})
	if err != nil {
		t.Fatalf("RunTurn: %v\nstderr:\n%s", err, stderr.String())
	}
	if diff := cmp.Diff([]string{"hi", "continue"}, sess.prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Hour}, sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if stdout.String() != "done\n" || streams != 1 {
		t.Errorf("stdout %q, %d stream starts; want %q, 1", stdout.String(), streams, "done\n")
	}
	for _, want := range []string{"session id: s1\n", "user\nhi\n", "for the limit to reset (--wait-for-reset)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if b, err := os.ReadFile(last); err != nil || string(b) != "done\n" {
		t.Errorf("-o file: %q, %v", b, err)
	}
}

// TestRunTurnExitErrors: a failed turn carries its exit code, and a
// completed turn whose session was not saved exits 6 after printing.
func TestRunTurnExitErrors(t *testing.T) {
	var stdout bytes.Buffer
	failed := &fakeSession{turns: []fakeTurn{{err: &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindAuth}}}}}}
	err := RunTurn(context.Background(), failed, "hi", Options{Stdout: &stdout, Stderr: &bytes.Buffer{}, JSON: true, WaitForReset: time.Hour})
	if got := exitcode.Of(err); got != exitcode.Auth {
		t.Errorf("auth failure: exit %d (%v); want %d", got, err, exitcode.Auth)
	}
	if !strings.HasPrefix(stdout.String(), `{"type":"thread.started"`) {
		t.Errorf("--json stdout:\n%s", stdout.String())
	}

	stdout.Reset()
	unsaved := &fakeSession{turns: []fakeTurn{answer("ok")}, saveErr: errors.New("disk full")}
	err = RunTurn(context.Background(), unsaved, "hi", Options{Stdout: &stdout, Stderr: &bytes.Buffer{}})
	if got := exitcode.Of(err); got != exitcode.NotSaved || stdout.String() != "ok\n" {
		t.Errorf("not saved: exit %d (%v), stdout %q; want %d, the answer", got, err, stdout.String(), exitcode.NotSaved)
	}
}

// TestRunTurnWaitForResetLayer: --wait-for-reset waits once per pause
// the server gives (each within the limit), and an interrupt during a
// wait leaves the paused turn's error standing, with no further request.
func TestRunTurnWaitForResetLayer(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	pause := func(d time.Duration) fakeTurn {
		return fakeTurn{err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: now.Add(d)}}}
	}
	run := func(sess *fakeSession, sleep func(context.Context, time.Duration) error) error {
		return RunTurn(context.Background(), sess, "hi", Options{
			Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, WaitForReset: time.Hour,
			Continue: func() string { return "continue" }, Now: func() time.Time { return now }, Sleep: sleep,
		})
	}
	var sleeps []time.Duration
	sess := &fakeSession{turns: []fakeTurn{pause(time.Minute), pause(time.Hour), answer("done")}}
	err := run(sess, func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil })
	if err != nil || !cmp.Equal(sleeps, []time.Duration{time.Minute, time.Hour}) || len(sess.prompts) != 3 {
		t.Errorf("two pauses: err %v, waits %v, prompts %v; want nil, [1m 1h], 3", err, sleeps, sess.prompts)
	}
	sess = &fakeSession{turns: []fakeTurn{pause(time.Minute), answer("never sent")}}
	err = run(sess, func(context.Context, time.Duration) error { return context.Canceled })
	var te *session.TurnError
	if !errors.As(err, &te) || te.End != modelclient.EndWait || exitcode.Of(err) != exitcode.Exhausted || len(sess.prompts) != 1 {
		t.Errorf("interrupted wait: err %v (exit %d), prompts %v; want the paused turn's error, exit 5, one prompt",
			err, exitcode.Of(err), sess.prompts)
	}
}
