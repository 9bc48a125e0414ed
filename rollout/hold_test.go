//go:build unix

package rollout_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/rollout"
)

// TestOneHolderAtATime: a session is held by one recorder at a time. A
// second Open fails naming the holder's pid; after Close it succeeds.
func TestOneHolderAtATime(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(home, rollout.SessionMeta{ID: "held-1"}, time.Now())
	must(t, err)
	_, err = rollout.Open(r.Path())
	var inUse *rollout.InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, rollout.ErrInUse) || inUse.PID != os.Getpid() {
		t.Fatalf("second Open = %v; want an InUseError naming pid %d", err, os.Getpid())
	}
	if want := fmt.Sprintf("session held-1 is in use by process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	must(t, r.Close())
	r2, err := rollout.Open(r.Path())
	must(t, err)
	must(t, r2.Close())
}

// TestDeadHolderDoesNotBlock: a child process holds the session and is
// killed; while it lives Open names its pid, once it is dead Open works.
func TestDeadHolderDoesNotBlock(t *testing.T) {
	if path := os.Getenv("ROLLOUT_HOLD"); path != "" {
		r, err := rollout.Open(path)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("holding")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
		_ = r.Close()
		os.Exit(0)
	}
	home := t.TempDir()
	r, err := rollout.Create(home, rollout.SessionMeta{ID: "held-2"}, time.Now())
	must(t, err)
	must(t, r.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestDeadHolderDoesNotBlock$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROLLOUT_HOLD="+r.Path())
	stdin, err := cmd.StdinPipe()
	must(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "holding\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child said %q, %v", line, err)
	}
	_, err = rollout.Open(r.Path())
	var inUse *rollout.InUseError
	if !errors.As(err, &inUse) || inUse.PID != cmd.Process.Pid {
		t.Errorf("Open while the child holds it = %v; want the child's pid %d", err, cmd.Process.Pid)
	}
	must(t, cmd.Process.Kill())
	_ = cmd.Wait()
	r2, err := rollout.Open(r.Path())
	if err != nil {
		t.Fatalf("Open after the holder died = %v", err)
	}
	must(t, r2.Close())
}

// TestCloseLeavesNoLockFile: after Close the sessions directory holds the
// rollout and nothing of the hold, so another client's home (Codex's
// sessions/) is left as it was; a hold taken again still names its pid.
func TestCloseLeavesNoLockFile(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(home, rollout.SessionMeta{ID: "held-3"}, time.Now())
	must(t, err)
	must(t, r.Close())
	for range 2 {
		r2, err := rollout.Open(r.Path())
		must(t, err)
		_, err = rollout.Open(r.Path())
		var inUse *rollout.InUseError
		if !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
			t.Fatalf("second Open = %v; want an InUseError naming pid %d", err, os.Getpid())
		}
		must(t, r2.Close())
		if _, err := os.Stat(r.Path() + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Close, %s.lock: %v; want it gone", r.Path(), err)
		}
	}
}
