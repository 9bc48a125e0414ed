package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestExecWaitForReset: a 429 asking for an hour pauses the turn at once;
// with --wait-for-reset covering the hour, exec waits it out (one wait of
// the server's time, no request before it) and continues the turn, which
// is answered once; with a MAX below it, or without the flag, it exits 5
// at once.
func TestExecWaitForReset(t *testing.T) {
	t.Parallel()
	script := func() rt.Script {
		return rt.Script{rt.Status(429, "Retry-After", "3600"), rt.Reply("r1", "m1", "answer after the reset")}
	}
	srv := rt.NewServer(t, script())
	r := runCLI(t, srv, runOpts{}, "exec", "--wait-for-reset=2h", "hi")
	if r.code != 0 || r.stdout != "answer after the reset\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if len(r.sleeps) != 1 || r.sleeps[0] > time.Hour || r.sleeps[0] < time.Hour-time.Minute {
		t.Errorf("waits %v; want one wait of the server's hour", r.sleeps)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; want 2 (the 429, then one after the wait)", n)
	}
	if !strings.Contains(r.stderr, "for the limit to reset (--wait-for-reset), then continuing the turn") {
		t.Errorf("stderr does not say it waits:\n%s", r.stderr)
	}

	for _, args := range [][]string{{"exec", "--wait-for-reset=30m", "hi"}, {"exec", "hi"}} {
		srv := rt.NewServer(t, script()[:1])
		r := runCLI(t, srv, runOpts{}, args...)
		if r.code != exitcode.Exhausted || len(r.sleeps) != 0 || len(srv.Requests()) != 1 {
			t.Errorf("%v: exit %d, waits %v, %d requests; want 5, none, 1\n%s", args, r.code, r.sleeps, len(srv.Requests()), r.stderr)
		}
	}

	// --wait-for-reset alone allows up to 24 h.
	srv = rt.NewServer(t, script())
	r = runCLI(t, srv, runOpts{}, "exec", "--json", "--wait-for-reset", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, `"type":"warning"`) || !strings.Contains(r.stdout, "answer after the reset") {
		t.Errorf("bare --wait-for-reset: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
