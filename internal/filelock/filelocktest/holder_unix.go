//go:build unix

// Package filelocktest holds locks from another process for tests: a
// background flock(1), as a user or a stray command holds one.
package filelocktest

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Holder starts `flock PATH` holding the lock in the background and
// returns its pid once it holds it; the test is skipped where flock(1) is
// missing. The holder and its child are killed at the end of the test
// (flock forks the command it runs: the process group ends both).
func Holder(t testing.TB, path string) int {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	cmd := exec.Command("flock", path, "sh", "-c", "echo held; exec sleep 300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "held" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	return cmd.Process.Pid
}
