package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock controls yield waits: each After returns a channel the test
// fires, and Now advances by a fixed step per call.
type fakeClock struct {
	fire chan time.Time
	now  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{fire: make(chan time.Time), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) After(time.Duration) <-chan time.Time { return c.fire }
func (c *fakeClock) Now() time.Time {
	c.now = c.now.Add(1500 * time.Millisecond)
	return c.now
}

func run(t *testing.T, tool tools.Tool, args any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	started := 0
	res := tool.Run(context.Background(), &tools.Invocation{
		Call:    tools.Call{ID: "c", Name: tool.Name(), Input: string(b)},
		Started: func() error { started++; return nil },
		Approve: func(context.Context, tools.ApprovalRequest) tools.Decision {
			t.Fatal("unexpected approval request")
			return tools.Decision{}
		},
	})
	if started > 1 {
		t.Errorf("Started called %d times", started)
	}
	return res
}

func TestExecFinishedCommand(t *testing.T) {
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After})
	defer ex.Close()
	res := run(t, ex, map[string]any{"cmd": "echo out; echo err >&2; exit 4"})
	want := "Wall time: 1.5000 seconds\nProcess exited with code 4\nOutput:\n"
	if !strings.HasPrefix(res.Output, want) {
		t.Errorf("output = %q; want prefix %q", res.Output, want)
	}
	if !strings.Contains(res.Output, "out\n") || !strings.Contains(res.Output, "err\n") {
		t.Errorf("stdout and stderr must both be captured: %q", res.Output)
	}
	if res.ExitCode == nil || *res.ExitCode != 4 || res.Status != tools.StatusFailed {
		t.Errorf("result = %+v", res)
	}
}

func TestExecLongRunningThenWriteStdin(t *testing.T) {
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After})
	defer ex.Close()
	ws := tools.NewWriteStdin(ex)

	done := make(chan tools.Result)
	go func() { done <- run(t, ex, map[string]any{"cmd": "echo ready; read line; echo got $line"}) }()
	clock.fire <- time.Time{} // the yield time passes with the process still reading
	res := <-done
	if !strings.Contains(res.Output, "Process running with session ID 1\n") {
		t.Fatalf("output = %q; want a running session", res.Output)
	}
	first := res.Output
	go func() { done <- run(t, ws, map[string]any{"session_id": 1, "chars": "hello\n"}) }()
	res = <-done // the process exits before any yield fires
	if !strings.Contains(res.Output, "Process exited with code 0") || !strings.Contains(res.Output, "got hello") {
		t.Errorf("write_stdin output = %q", res.Output)
	}
	// Each byte of output is returned once, by whichever call saw it first.
	if n := strings.Count(first+res.Output, "ready"); n != 1 {
		t.Errorf("\"ready\" returned %d times:\n%s\n%s", n, first, res.Output)
	}
	res = run(t, ws, map[string]any{"session_id": 1})
	if res.Status != tools.StatusFailed || !strings.Contains(res.Output, "no running process with session ID 1") {
		t.Errorf("poll after exit = %+v", res)
	}
}

func TestExecCloseKillsBackgroundProcesses(t *testing.T) {
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After})
	done := make(chan tools.Result)
	go func() { done <- run(t, ex, map[string]any{"cmd": "sleep 1000"}) }()
	clock.fire <- time.Time{}
	<-done
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	} // goleak in TestMain proves the waiter goroutine ended
}

func TestExecTruncatesMiddle(t *testing.T) {
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever})
	defer ex.Close()
	res := run(t, ex, map[string]any{"cmd": "printf 'HEAD'; head -c 4000 /dev/zero | tr '\\0' x; printf 'TAIL'", "max_output_tokens": 100})
	if !strings.Contains(res.Output, "Original token count: 1002\n") {
		t.Errorf("no original token count: %q", res.Output[:min(200, len(res.Output))])
	}
	if !regexp.MustCompile(`Output:\nHEADx+\n…902 tokens truncated…\nx+TAIL\nWarning: truncated output \(original token count: 1002\)$`).MatchString(res.Output) {
		t.Errorf("middle truncation wrong: %q", res.Output)
	}
}

func TestExecApprovalRules(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		policy  string
		args    map[string]any
		ask     bool
		decide  tools.Decision
		status  tools.Status
		output  string
		started bool
	}{
		{"never runs sandboxed without asking", tools.PolicyNever, map[string]any{"cmd": "true"}, false, tools.Decision{}, tools.StatusCompleted, "", true},
		{"never forbids escalation", tools.PolicyNever, map[string]any{"cmd": "true", "sandbox_permissions": "require_escalated"}, false, tools.Decision{}, tools.StatusDeclined, "escalation is not available", false},
		{"on-request runs sandboxed", tools.PolicyOnRequest, map[string]any{"cmd": "true"}, false, tools.Decision{}, tools.StatusCompleted, "", true},
		{"on-request asks to escalate", tools.PolicyOnRequest, map[string]any{"cmd": "true", "sandbox_permissions": "require_escalated", "justification": "needs net"}, true, tools.Decision{Kind: tools.ApproveOnce}, tools.StatusCompleted, "", true},
		{"untrusted asks, denial with a note", tools.PolicyUntrusted, map[string]any{"cmd": "true"}, true, tools.Decision{Kind: tools.Deny, Note: "no"}, tools.StatusDeclined, "exec command rejected by user: no", false},
		{"untrusted asks, abort", tools.PolicyUntrusted, map[string]any{"cmd": "true"}, true, tools.Decision{Kind: tools.AbortTurn}, tools.StatusAborted, "aborted by user", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tools.NewExec(tools.ExecOptions{Cwd: dir, Shell: "/bin/sh", Policy: tt.policy, Sandbox: tools.SandboxWorkspaceWrite})
			defer ex.Close()
			b, _ := json.Marshal(tt.args)
			asked, started := false, false
			res := ex.Run(context.Background(), &tools.Invocation{
				Call:    tools.Call{ID: "c", Name: "exec_command", Input: string(b)},
				Started: func() error { started = true; return nil },
				Approve: func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
					asked = true
					if req.Kind != "command" || req.Command != "true" || req.CallID != "c" || req.Reason != fmt.Sprint(tt.args["justification"]) && tt.args["justification"] != nil {
						t.Errorf("request = %+v", req)
					}
					return tt.decide
				},
			})
			if asked != tt.ask || started != tt.started || res.Status != tt.status || !strings.Contains(res.Output, tt.output) {
				t.Errorf("asked=%v started=%v result=%+v; want asked=%v started=%v status=%s output~%q",
					asked, started, res, tt.ask, tt.started, tt.status, tt.output)
			}
			if tt.decide.Kind == tools.AbortTurn && !res.AbortTurn {
				t.Error("abort decision must abort the turn")
			}
		})
	}
}

// TestExecJustificationNotCopied: an exec_command call that asks for no
// approval does not copy its justification (a model may send 120 MiB of
// it: the copy was the fourth of the event in the process; issue 42).
func TestExecJustificationNotCopied(t *testing.T) {
	const size = 8 << 20
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever})
	defer ex.Close()
	input := `{"cmd":"true","justification":"` + strings.Repeat("lorem ipsum ", size/12) + `"}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := ex.Run(context.Background(), &tools.Invocation{Call: tools.Call{ID: "c", Name: "exec_command", Input: input}})
	runtime.ReadMemStats(&after)
	if res.Status != tools.StatusCompleted {
		t.Fatalf("result %+v; want the command run", res)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("running a call with a %d MiB justification allocated %.1f MiB; want no copy of it", size>>20, float64(alloc)/(1<<20))
	}
}

func TestShellJoinQuotesAsTheReferenceClient(t *testing.T) {
	// The right-hand sides are what codex 0.169 printed for these commands
	// (cmd/agent/testdata/codexparity/command.codex.jsonl).
	for argv, want := range map[[3]string]string{
		{"/bin/bash", "-lc", "printf 'one\\ntwo\\n'"}: `/bin/bash -lc "printf 'one\\ntwo\\n'"`,
		{"/bin/bash", "-lc", "echo oops >&2; exit 3"}: `/bin/bash -lc 'echo oops >&2; exit 3'`,
		{"/bin/bash", "-lc", "ls"}:                    `/bin/bash -lc ls`,
		{"/bin/bash", "-c", `echo "$HOME" 'x'`}:       `/bin/bash -c "echo \"\$HOME\" 'x'"`,
		{"/bin/bash", "-lc", ""}:                      `/bin/bash -lc ''`,
	} {
		if got := tools.ShellJoin(argv[:]); got != want {
			t.Errorf("ShellJoin(%q) = %s; want %s", argv, got, want)
		}
	}
}

func TestExecArgv(t *testing.T) {
	if argv, ok := tools.ExecArgv("/bin/sh", `{"cmd":"ls","login":false}`); !ok || tools.ShellJoin(argv) != "/bin/sh -c ls" {
		t.Errorf("ExecArgv = %q, %v", argv, ok)
	}
	if _, ok := tools.ExecArgv("/bin/sh", `{"cmd":""}`); ok {
		t.Error("ExecArgv accepted an empty cmd")
	}
}

// TestExecDefaultEnvironment: without an Env, commands get agent's
// environment through the default shell_environment_policy: no *KEY*,
// *SECRET* or *TOKEN* variables, in exec_command and in a write_stdin
// session alike; other variables pass.
func TestExecDefaultEnvironment(t *testing.T) {
	t.Setenv("AGENT_TEST_API_KEY", "k-0000-0000")
	t.Setenv("AGENT_TEST_TOKEN", "t-0000-0000")
	t.Setenv("AGENT_TEST_PLAIN", "visible")
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After})
	defer ex.Close()
	check := func(name, out string) {
		t.Helper()
		if !strings.Contains(out, "AGENT_TEST_PLAIN=visible") || !strings.Contains(out, "PATH=") {
			t.Errorf("%s: allowed variables missing:\n%s", name, out)
		}
		if strings.Contains(out, "AGENT_TEST_API_KEY") || strings.Contains(out, "AGENT_TEST_TOKEN") {
			t.Errorf("%s: a key reached the command:\n%s", name, out)
		}
	}
	check("exec_command", run(t, ex, map[string]any{"cmd": "env"}).Output)

	done := make(chan tools.Result)
	go func() { done <- run(t, ex, map[string]any{"cmd": "read line; env"}) }()
	clock.fire <- time.Time{}
	if res := <-done; !strings.Contains(res.Output, "session ID 1") {
		t.Fatalf("output = %q; want a running session", res.Output)
	}
	go func() { done <- run(t, tools.NewWriteStdin(ex), map[string]any{"session_id": 1, "chars": "go\n"}) }()
	check("write_stdin", (<-done).Output)

	// A given Env is used as it is.
	ex2 := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After,
		Env: []string{"ONLY=this", "PATH=/usr/bin:/bin"}})
	defer ex2.Close()
	if out := run(t, ex2, map[string]any{"cmd": "env"}).Output; !strings.Contains(out, "ONLY=this") || strings.Contains(out, "AGENT_TEST_PLAIN") {
		t.Errorf("the given Env was not used:\n%s", out)
	}
}

// TestExecStopUsesCancel: a process is ended through its command's Cancel
// when it has one (the sandbox's guard ends everything the command started
// that way), not by a SIGKILL of its pid alone.
func TestExecStopUsesCancel(t *testing.T) {
	clock := newFakeClock()
	cancelled := make(chan struct{}, 1)
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After,
		Command: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c := exec.CommandContext(ctx, argv[0], argv[1:]...)
			c.Dir = dir
			c.Cancel = func() error {
				cancelled <- struct{}{}
				return c.Process.Kill()
			}
			return c, nil
		}})
	defer ex.Close()
	done := make(chan tools.Result)
	go func() { done <- run(t, ex, map[string]any{"cmd": "sleep 1000"}) }()
	clock.fire <- time.Time{}
	if res := <-done; !strings.Contains(res.Output, "session ID 1") {
		t.Fatalf("output = %q; want a running session", res.Output)
	}
	if n := ex.Stop(1); n != 1 {
		t.Fatalf("Stop = %d", n)
	}
	select {
	case <-cancelled:
	default:
		t.Error("Stop killed the process without its command's Cancel")
	}
}
