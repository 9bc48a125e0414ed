package tui

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/transport"
)

// newLiveModel is newTestModel with running jobs, so hook commands run
// (synchronously, in runCmd). Ticks are off: they would wait for real.
func newLiveModel(t *testing.T, opts Options) *Model {
	t.Helper()
	c := newClock()
	opts.Now, opts.NoColor = c.now, true
	if opts.Engine == nil {
		opts.Engine = nopEngine{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	j := newJobs()
	t.Cleanup(func() {
		cancel()
		j.stop()
	})
	m := newModel(ctx, opts, j)
	m.ticking = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	return m
}

// slashRun submits a command line and feeds its results back.
func slashRun(m *Model, line string) {
	for _, msg := range runCmd(submit(m, line)) {
		m.Update(msg)
	}
}

// namedEngine is an engine that only has a name.
type namedEngine struct {
	nopEngine
	name string
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	hooks := Commands{
		New: func(context.Context) (Engine, error) { return namedEngine{name: "fresh"}, nil },
		Model: func(_ context.Context, name, _ string) (Engine, error) {
			if name == "bad" {
				return nil, errors.New("unknown model bad")
			}
			return nil, nil
		},
		Status:    func() []string { return []string{"config: /home/u/.agent/config.toml", "transport: https (fell back)"} },
		Compact:   func(context.Context) (string, error) { return "Compacted 40 items into 1 summary.", nil },
		Approvals: func(_ context.Context, p string) (string, error) { return "approval policy: " + p, nil },
		Resume: func(context.Context, string) (Resumed, error) {
			return Resumed{Engine: namedEngine{name: "old"}, Messages: []Message{
				{Role: "user", Text: "earlier question"}, {Role: "assistant", Text: "earlier **answer**"}}}, nil
		},
	}
	tests := []struct {
		name   string
		hooks  Commands
		lines  []string
		want   []string
		absent []string
		check  func(t *testing.T, m *Model)
	}{
		{name: "help lists commands and keys", lines: []string{"/help"},
			want: []string{"/model", "/permissions (/approvals)", "/new", "/diff", "/quit (/exit)", "alt+enter", "twice within 1s quit"}},
		{name: "unknown command", lines: []string{"/frobnicate now"}, want: []string{`Unrecognized command '/frobnicate'. Type "/" for a list of supported commands.`}},
		{name: "missing hooks say so", lines: []string{"/new", "/compact", "/resume", "/approvals"},
			want: []string{"/new is not available", "/compact is not available", "/resume is not available",
				"/permissions is not available"}},
		{name: "status without a hook", lines: []string{"/status"},
			want: []string{"provider: (not set)", "model: gpt-x", "retries this session: 2"}},
		{name: "status with the hook, tokens and retries", hooks: hooks, lines: []string{"/status"},
			want: []string{"config: /home/u/.agent/config.toml", "transport: https (fell back)",
				"context: 1.5k tokens of 272k (0%)", "tokens this session: 3k", "retries this session: 2"}},
		{name: "new resets the conversation and the engine", hooks: hooks, lines: []string{"hi", "/new"},
			want: []string{"Started a new conversation."}, absent: []string{"› hi"},
			check: func(t *testing.T, m *Model) {
				if e, ok := m.engine.(namedEngine); !ok || e.name != "fresh" {
					t.Errorf("engine = %v, want the new one", m.engine)
				}
			}},
		{name: "model switches", hooks: hooks, lines: []string{"/model gpt-y", "/model"},
			want: []string{"model: gpt-y", "Choose a model", "› gpt-y  current · configured"},
			check: func(t *testing.T, m *Model) {
				if m.opts.Model != "gpt-y" {
					t.Errorf("model = %q", m.opts.Model)
				}
			}},
		{name: "a failing hook shows its error", hooks: hooks, lines: []string{"/model bad"},
			want: []string{"✗ unknown model bad"}},
		{name: "compact", hooks: hooks, lines: []string{"/compact"}, want: []string{"Compacted 40 items"}},
		{name: "approvals", hooks: hooks, lines: []string{"/approvals never"}, want: []string{"approval policy: never"}},
		{name: "resume shows the old conversation", hooks: hooks, lines: []string{"/resume"},
			want: []string{"› earlier question", "earlier answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newLiveModel(t, Options{Commands: tt.hooks, Model: "gpt-x", ContextWindow: 272000})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 60}) // /help's whole list fits
			m.last, m.total, m.retries = transport.Usage{TotalTokens: 1500}, transport.Usage{TotalTokens: 3000}, 2
			for _, ln := range tt.lines {
				slashRun(m, ln)
				if m.turn != nil { // a plain message: end its turn
					runCmd(done(t, m, nil))
				}
			}
			got := plain(m.View())
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("view lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("view has %q:\n%s", a, got)
				}
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func TestExclusiveCommandsWaitForTheTurn(t *testing.T) {
	t.Parallel()
	called := false
	m := newLiveModel(t, Options{Commands: Commands{New: func(context.Context) (Engine, error) {
		called = true
		return nil, nil
	}}})
	submit(m, "working")
	slashRun(m, "/new")
	if called || m.busy != nil {
		t.Error("/new ran during a turn")
	}
	if !strings.Contains(plain(m.View()), "wait for the current turn to end") {
		t.Errorf("no explanation:\n%s", plain(m.View()))
	}
}

func TestMessagesQueueBehindABusyCommand(t *testing.T) {
	t.Parallel()
	m := newLiveModel(t, Options{Commands: Commands{Compact: func(context.Context) (string, error) {
		return "compacted", nil
	}}})
	cmd := submit(m, "/compact") // not run yet: the hook is "in flight"
	if m.busy == nil {
		t.Fatal("compact is not busy")
	}
	submit(m, "after compaction")
	if diff := cmp.Diff([]string{"after compaction"}, m.queue); diff != "" {
		t.Fatalf("queue (-want +got):\n%s", diff)
	}
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if m.turn == nil || len(m.queue) != 0 {
		t.Error("the queued message was not sent after the command")
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("init", "-q")
	write("a.txt", "old\n")
	gitRun("add", "a.txt")
	gitRun("commit", "-q", "-m", "init")
	m := newLiveModel(t, Options{Dir: dir})
	slashRun(m, "/diff")
	if !strings.Contains(plain(m.View()), "No changes.") {
		t.Errorf("clean tree:\n%s", plain(m.View()))
	}
	write("a.txt", "new\n")
	write("b.txt", "untracked\n")
	write("c.txt", "staged\n")
	gitRun("add", "c.txt")
	slashRun(m, "/diff")
	got := plain(m.View())
	for _, w := range []string{"• git diff", "-old", "+new", "+untracked", "+staged"} {
		if !strings.Contains(got, w) {
			t.Errorf("diff view lacks %q:\n%s", w, got)
		}
	}
	m2 := newLiveModel(t, Options{Dir: t.TempDir()})
	slashRun(m2, "/diff")
	if !strings.Contains(plain(m2.View()), "not inside a git repository") {
		t.Errorf("outside a repository:\n%s", plain(m2.View()))
	}
}

func TestSlashQuit(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"/quit", "/exit"} {
		m, _ := newTestModel(t, Options{})
		if !isQuit(submit(m, c)) {
			t.Errorf("%s did not quit", c)
		}
	}
}

func TestEscCancelsABusyCommand(t *testing.T) {
	t.Parallel()
	m := newLiveModel(t, Options{Commands: Commands{Compact: func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}})
	cmd := submit(m, "/compact")
	if !strings.Contains(plain(m.statusLine()), "Compacting") {
		t.Errorf("status = %q", plain(m.statusLine()))
	}
	send(m, press("esc"))
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if m.busy != nil || !strings.Contains(plain(m.View()), "■ Cancelled") {
		t.Errorf("busy=%v view:\n%s", m.busy, plain(m.View()))
	}
}

// TestPermissionsPickerStartsOnCurrent: /permissions marks the preset in
// force and starts on it, as Codex's does; /status names the model once.
func TestPermissionsPickerStartsOnCurrent(t *testing.T) {
	t.Parallel()
	hooks := Commands{
		Approvals:   func(context.Context, string) (string, error) { return "", nil },
		Permissions: func() (string, string) { return "workspace-write", "on-request" },
		Status:      func() []string { return []string{"model: gpt-x (reasoning high)"} },
	}
	m := newLiveModel(t, Options{Commands: hooks, Model: "gpt-x"})
	slashRun(m, "/permissions")
	view := plain(m.View())
	if !strings.Contains(view, "› Auto") || !strings.Contains(view, "current · edits files") {
		t.Errorf("the picker does not start on the current preset, marked:\n%s", view)
	}
	send(m, press("esc"))
	slashRun(m, "/status")
	if view = plain(m.View()); strings.Count(view, "model: gpt-x") != 1 {
		t.Errorf("/status names the model other than once:\n%s", view)
	}
}
