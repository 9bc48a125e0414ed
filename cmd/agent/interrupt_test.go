package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/filelock"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestCtrlCWhileALockIsHeld: Ctrl-C while `agent exec resume --last`
// waits for the session index another process holds ends it with exit 130
// and "interrupted", not a usage error after the lock's bound, and sends
// no request.
func TestCtrlCWhileALockIsHeld(t *testing.T) {
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
