package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// scriptEngine answers the first turn with a scripted stream that breaks,
// is retried and then completes; the second turn signals started and waits
// for its ctx to end.
type scriptEngine struct {
	started  chan struct{} // closed when the second turn starts
	returned chan struct{} // closed when the second turn returns
	mu       sync.Mutex
	inputs   []string
}

func (e *scriptEngine) RetryNow() {}

func (e *scriptEngine) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	e.mu.Lock()
	e.inputs = append(e.inputs, input)
	n := len(e.inputs)
	e.mu.Unlock()
	if n > 1 {
		defer close(e.returned)
		close(e.started)
		<-ctx.Done()
		return ctx.Err()
	}
	emit(session.TurnStarted{})
	emit(session.TextDelta{ItemID: "m1", Delta: "Hel"})
	emit(session.Retracted{ItemIDs: []string{"m1"}})
	emit(retry503(1, 2*time.Second))
	emit(session.TextDelta{ItemID: "m2", Delta: "Hello, "})
	emit(session.TextDelta{ItemID: "m2", Delta: "world!"})
	emit(session.MessageDone{ItemID: "m2", Text: "Hello, **world**!"})
	emit(session.TurnCompleted{Last: transport.Usage{TotalTokens: 1200}, Total: transport.Usage{TotalTokens: 1200}})
	return nil
}

// keyScript is the program's input: each step waits for its channel (if
// any), then yields its bytes; after the last step it reports EOF, which
// ends bubbletea's read loop without quitting the program. (An os.Pipe
// would do, but bubbletea's epoll reader can outlive a killed program.)
type keyScript struct {
	ctx   context.Context
	steps []keyStep
}

type keyStep struct {
	after <-chan struct{}
	keys  string
}

func (k *keyScript) Read(p []byte) (int, error) {
	if len(k.steps) == 0 {
		return 0, io.EOF
	}
	st := k.steps[0]
	if st.after != nil {
		select {
		case <-st.after:
		case <-k.ctx.Done():
			return 0, io.EOF
		}
	}
	k.steps = k.steps[1:]
	return copy(p, st.keys), nil
}

// TestChatEndToEnd runs the real program loop: keys come through a pipe,
// the engine runs on the chat's goroutine, and the final model is checked.
// "hello" and "bye" are typed one read after the other (each Enter a read
// of its own, as a key press is), so "bye" is queued behind the first turn
// and sent when it ends; the second turn's start proves the first was
// fully shown, and Ctrl-D then quits.
func TestChatEndToEnd(t *testing.T) {
	t.Parallel()
	eng := &scriptEngine{started: make(chan struct{}), returned: make(chan struct{})}
	var out syncbuf.Buffer
	histPath := filepath.Join(t.TempDir(), "home", "history.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, not blocks
	defer cancel()
	// "hello" and "bye" at once, then Ctrl-D (on the empty composer) once
	// the second turn runs.
	in := &keyScript{ctx: ctx, steps: []keyStep{{keys: "hello"}, {keys: "\r"}, {keys: "bye"}, {keys: "\r"}, {after: eng.started, keys: "\x04"}}}
	opts := Options{Engine: eng, Approver: NewApprover(), Input: in, Output: &out, NoColor: true,
		Now: newClock().now, HistoryPath: histPath, Model: "gpt-test", ContextWindow: 272000}

	type result struct {
		m   *Model
		err error
	}
	res := make(chan result, 1)
	go func() {
		m, err := run(ctx, opts, tea.WithoutSignalHandler())
		res <- result{m, err}
	}()
	r := <-res
	if r.err != nil {
		t.Fatalf("run: %v", r.err)
	}
	select {
	case <-eng.returned:
	default:
		t.Error("run returned before the engine's Turn did")
	}

	view := plain(r.m.View())
	for _, want := range []string{"› hello", "↻ Reconnecting... 1/5 in 2.0s (503 Service Unavailable)", "Hello, world!", "› bye"} {
		if !strings.Contains(view, want) {
			t.Errorf("final view lacks %q:\n%s", want, view)
		}
	}
	if n := strings.Count(view, "Hello, world!"); n != 1 {
		t.Errorf("the answer appears %d times:\n%s", n, view)
	}
	for _, ln := range strings.Split(view, "\n") {
		if strings.TrimSpace(ln) == "Hel" {
			t.Errorf("the retracted partial answer is still shown:\n%s", view)
		}
	}
	if diff := cmp.Diff([]string{"hello", "bye"}, eng.inputs); diff != "" {
		t.Errorf("turn inputs (-want +got):\n%s", diff)
	}
	if out.Len() == 0 {
		t.Error("the program drew nothing")
	}
	entries, err := readHistory(histPath, historyTail)
	if err != nil || !cmp.Equal(entries, []string{"hello", "bye"}) {
		t.Errorf("history file = %q, %v", entries, err)
	}
	if st, err := os.Stat(histPath); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("history file mode: %v, %v", st, err)
	}
}

// TestRunEndsWithContext checks that cancelling Run's ctx ends the chat
// and the turn, and Run reports the cancellation.
func TestRunEndsWithContext(t *testing.T) {
	t.Parallel()
	eng := &scriptEngine{started: make(chan struct{}), returned: make(chan struct{})}
	eng.inputs = []string{"(first turn already ran)"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &keyScript{ctx: ctx, steps: []keyStep{{keys: "wait"}, {keys: "\r"}}}
	res := make(chan error, 1)
	go func() {
		_, err := run(ctx, Options{Engine: eng, Input: in, Output: &syncbuf.Buffer{}, NoColor: true},
			tea.WithoutSignalHandler())
		res <- err
	}()
	<-eng.started
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Errorf("run = %v, want context.Canceled", err)
	}
	<-eng.returned
}
