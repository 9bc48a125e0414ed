package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/syncbuf"
)

// TestSecondSignalExits: the first signal ends the context (agent stops
// and records); a second exits at once with 130, whatever the first is
// still waiting for. The child is this test binary, which ignores its
// context as a stop stuck behind another process's lock would.
func TestSecondSignalExits(t *testing.T) {
	if os.Getenv("AGENT_TEST_SIGNAL_CHILD") == "1" {
		ctx, _ := stopOnSignals([]os.Signal{syscall.SIGUSR1})
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString("stopping\n")
		select {} // stuck: only the second signal ends it
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondSignalExits$")
	cmd.Env = append(os.Environ(), "AGENT_TEST_SIGNAL_CHILD=1")
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), s); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("child never said %q:\n%s", s, out)
			}
		}
	}
	wait("ready")
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	wait("stopping")
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(out.String(), "interrupted again") {
			t.Errorf("child ended with %v; want exit 130 saying so:\n%s", err, out)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the second signal did not end the child")
	}
}
