package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestMain fails on leaked goroutines. regexp2's match-timeout clock
// (chroma sets a timeout on every rule; tests that colour code lex in
// process, package lexing) is the library's own: it stops by itself about
// a second after the last match.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/dlclark/regexp2/v2.runClock"),
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

// clock is a fake clock, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// nopEngine never runs: Update tests feed the events themselves.
type nopEngine struct{}

func (nopEngine) Turn(context.Context, string, func(session.Event)) error { return nil }
func (nopEngine) RetryNow()                                               {}

// newTestModel returns a model that is not attached to a program: the test
// calls Update and View itself. Its jobs are stopped from the start, so
// every command returns at once (turns and hooks are skipped, ticks and
// readers return nil) and tests may run any command they get.
func newTestModel(t testing.TB, opts Options) (*Model, *clock) {
	t.Helper()
	c := newClock()
	if opts.Engine == nil {
		opts.Engine = nopEngine{}
	}
	if opts.Now == nil {
		opts.Now = c.now
	}
	opts.NoColor = true
	if opts.Model == "" {
		opts.Model = "gpt-test"
	}
	ctx, cancel := context.WithCancel(context.Background())
	j := newJobs()
	t.Cleanup(cancel)
	j.stop()
	m := newModel(ctx, opts, j)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m, c
}

// send feeds msgs to Update and returns the last command.
func send(m *Model, msgs ...tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	for _, msg := range msgs {
		_, cmd = m.Update(msg)
	}
	return cmd
}

// emit feeds engine events of the running turn.
func emit(t testing.TB, m *Model, evs ...session.Event) {
	t.Helper()
	if m.turn == nil {
		t.Fatal("emit: no turn is running")
	}
	for _, ev := range evs {
		m.Update(streamMsg{turn: m.turn.id, ev: ev})
	}
}

// done ends the running turn with err.
func done(t testing.TB, m *Model, err error) tea.Cmd {
	t.Helper()
	if m.turn == nil {
		t.Fatal("done: no turn is running")
	}
	return send(m, turnDoneMsg{turn: m.turn.id, err: err})
}

// press returns the key message for a key name ("enter", "ctrl+c") or, for
// anything else, the runes typed.
func press(s string) tea.KeyMsg {
	names := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "ctrl+c": tea.KeyCtrlC, "ctrl+d": tea.KeyCtrlD,
		"ctrl+j": tea.KeyCtrlJ, "up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp,
		"pgdown": tea.KeyPgDown, "backspace": tea.KeyBackspace, "ctrl+r": tea.KeyCtrlR, "tab": tea.KeyTab,
		"ctrl+t": tea.KeyCtrlT,
	}
	if s == "alt+enter" {
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	}
	if k, ok := names[s]; ok {
		return tea.KeyMsg{Type: k}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// typeText types s into the composer.
func typeText(m *Model, s string) { send(m, press(s)) }

// submit types s and presses Enter; it returns Enter's command.
func submit(m *Model, s string) tea.Cmd {
	typeText(m, s)
	return send(m, press("enter"))
}

// plain is the view without escape sequences and trailing blanks.
func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, ln := range lines {
		lines[i] = strings.TrimRight(ln, " ")
	}
	return strings.Join(lines, "\n")
}

// runCmd runs a command tree of a test model (all its commands return at
// once) and returns the messages it produced.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// isQuit reports whether cmd quits the program.
func isQuit(cmd tea.Cmd) bool {
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// golden compares got with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// retry503 is a stream-layer retry after a 503.
func retry503(attempt int, delay time.Duration) session.Retry {
	return session.Retry{Retry: modelclient.Retry{
		Layer: modelclient.LayerStream, Class: "server_error", Attempt: attempt, Max: 5, Delay: delay,
		Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503},
	}}
}

// execCall is an exec_command call running cmd.
func execCall(id, cmd string) tools.Call {
	return tools.Call{ID: id, Name: "exec_command", Input: `{"cmd":"` + cmd + `"}`}
}
