package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/filelock"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestCtrlCWhileALockIsHeld: Ctrl-C while `agent exec resume --last`
// waits for the session index another process holds ends it with exit 130
// and "interrupted", not a usage error after the lock's bound, and sends
// no request.
func TestCtrlCWhileALockIsHeld(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "answer")})
	first := runCLI(t, srv, runOpts{}, "exec", "hi")
	if first.code != 0 {
		t.Fatalf("first exec: exit %d\n%s", first.code, first.stderr)
	}
	held, err := filelock.TryLockPath(filepath.Join(first.home, "sessions", "index.lock"))
	if err != nil || held == nil {
		t.Fatalf("hold the index lock: %v, %v", held, err)
	}
	defer held.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // Ctrl-C: the command's context is done
	r := runCLI(t, srv, runOpts{home: first.home, ctx: ctx}, "exec", "resume", "--last", "again")
	if r.code != exitcode.Interrupted || !strings.Contains(r.stderr, "agent: interrupted") {
		t.Errorf("exit %d; want %d and \"interrupted\"\nstderr:\n%s", r.code, exitcode.Interrupted, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; want only the first exec's", n)
	}
}

// TestE2ECtrlCBehindHeldIndexLock: another process holds AGENT_HOME's
// session index lock (agent's own hold it for milliseconds); the first
// SIGINT while agent exec waits for it ends exec with 130 at once, not
// after one more lock wait per index update still due (13 s measured).
func TestE2ECtrlCBehindHeldIndexLock(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "answer")})
	home := writeConfig(t, srv.URL, "")
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(home, "sessions", "index.lock")
	held, err := filelock.TryLockPath(lock)
	if err != nil || held == nil {
		t.Fatalf("hold the index lock: %v, %v", held, err)
	}
	defer held.Unlock()
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "hi")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Agent waits for the lock once it has the lock file open.
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	for deadline := time.Now().Add(60 * time.Second); !opened(fds, lock); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("agent never opened %s; stderr:\n%s", lock, stderr)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Interrupted {
			t.Errorf("exit = %v; want 130\nstderr:\n%s", err, stderr)
		}
		// One lock wait is filelock.DefaultMaxWait: ending sooner shows
		// no wait was begun after the signal.
		if d := time.Since(sent); d >= filelock.DefaultMaxWait {
			t.Errorf("agent exec ended %v after SIGINT; want no lock wait after it (one is %v)\nstderr:\n%s", d.Round(time.Millisecond), filelock.DefaultMaxWait, stderr)
		} else {
			t.Logf("agent exec ended %v after SIGINT", d.Round(time.Millisecond))
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("agent exec still runs 60 s after SIGINT\nstderr:\n%s", stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests; want none (stopped before the turn)", n)
	}
}

// opened reports whether a link in the fd directory fds names path.
func opened(fds, path string) bool {
	ents, _ := os.ReadDir(fds)
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}
