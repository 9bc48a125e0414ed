package tools_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/tools"
)

// TestRunningAndStop: a session the model keeps open is listed with its
// command (/ps) until Stop ends it (/stop); a write to it then finds it
// gone.
func TestRunningAndStop(t *testing.T) {
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After})
	defer ex.Close()
	done := make(chan tools.Result)
	go func() { done <- run(t, ex, map[string]any{"cmd": "echo up; read forever"}) }()
	clock.fire <- time.Time{}
	if res := <-done; !strings.Contains(res.Output, "session ID 1") {
		t.Fatalf("output = %q", res.Output)
	}
	got := ex.Running()
	if len(got) != 1 || got[0].ID != 1 || got[0].Command != "echo up; read forever" {
		t.Fatalf("Running = %+v", got)
	}
	if n := ex.Stop(7); n != 0 {
		t.Errorf("Stop(7) stopped %d", n)
	}
	if n := ex.Stop(-1); n != 1 {
		t.Errorf("Stop(-1) stopped %d, want 1", n)
	}
	if got := ex.Running(); len(got) != 0 {
		t.Errorf("Running after Stop = %+v", got)
	}
	res := run(t, tools.NewWriteStdin(ex), map[string]any{"session_id": 1, "chars": "x\n"})
	if res.Status != tools.StatusFailed {
		t.Errorf("write to a stopped session = %+v", res)
	}
}

// TestSessionOutlivesItsCall: a command still running after its yield is
// not killed when the call's context ends (the turn that started it is
// over); the next turn's write_stdin still reaches it.
func TestSessionOutlivesItsCall(t *testing.T) {
	clock := newFakeClock()
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever, Now: clock.Now, After: clock.After,
		Command: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c := exec.CommandContext(ctx, argv[0], argv[1:]...) // as sandbox.Command builds it
			c.Dir = dir
			return c, nil
		}})
	defer ex.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	b, _ := json.Marshal(map[string]any{"cmd": "read line; echo got $line"})
	go func() {
		done <- ex.Run(ctx, &tools.Invocation{Call: tools.Call{ID: "c", Name: "exec_command", Input: string(b)},
			Started: func() error { return nil }})
	}()
	clock.fire <- time.Time{}
	if res := <-done; !strings.Contains(res.Output, "session ID 1") {
		t.Fatalf("output = %q", res.Output)
	}
	cancel() // the turn ends
	if got := ex.Running(); len(got) != 1 {
		t.Fatalf("Running after the turn = %+v", got)
	}
	res := run(t, tools.NewWriteStdin(ex), map[string]any{"session_id": 1, "chars": "hi\n"})
	if !strings.Contains(res.Output, "got hi") {
		t.Errorf("the next turn's write_stdin = %q", res.Output)
	}
}
