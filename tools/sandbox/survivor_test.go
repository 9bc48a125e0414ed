//go:build linux

package sandbox_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/tools/sandbox"
)

// survivorBound is how long a test waits for the last holder of a
// command's output pipe to go away before it calls it a survivor; a
// sandbox that works closes the pipe at once.
const survivorBound = 15 * time.Second

// pipeClosed reports whether every writer of r went away within
// [survivorBound], draining what they wrote.
func pipeClosed(t *testing.T, r *os.File) bool {
	t.Helper()
	if err := r.SetReadDeadline(time.Now().Add(survivorBound)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, r)
	return err == nil
}

// TestNoSurvivors starts processes that leave the command's session and
// process group (setsid, a double fork) and would go on writing: none may
// outlive the command, whether it exits or is killed.
func TestNoSurvivors(t *testing.T) {
	t.Parallel()
	const detach = `setsid sh -c 'sleep 300' & (setsid sh -c 'sleep 300' &) ; `
	for _, mode := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		t.Run(string(mode)+"/command exits", func(t *testing.T) {
			t.Parallel()
			p := sandbox.Policy{Mode: mode, Workspace: t.TempDir()}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := command(t, p, "sh", "-c", detach+"echo started")
			cmd.Stdout, cmd.Stderr = w, w
			err = cmd.Run()
			w.Close()
			if err != nil {
				t.Fatalf("command: %v", err)
			}
			if !pipeClosed(t, r) {
				t.Errorf("processes the command detached outlived it by %v", survivorBound)
			}
		})
		t.Run(string(mode)+"/command killed", func(t *testing.T) {
			t.Parallel()
			p := sandbox.Policy{Mode: mode, Workspace: t.TempDir()}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cmd, err := sandbox.Command(ctx, p, "sh", "-c", detach+"echo started; exec sleep 300")
			if err != nil {
				t.Skipf("no sandbox: %v", err)
			}
			cmd.Stdout, cmd.Stderr = w, w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			line, err := bufio.NewReader(r).ReadString('\n')
			if strings.TrimSpace(line) != "started" {
				t.Fatalf("first line %q, %v", line, err)
			}
			cancel() // as agent does when a turn is interrupted or a session closed
			cmd.Wait()
			if !pipeClosed(t, r) {
				t.Errorf("processes the command detached outlived its kill by %v", survivorBound)
			}
		})
	}
}
