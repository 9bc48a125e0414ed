//go:build unix

package rollout_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/internal/filelock"
	"github.com/agentcli/agent/internal/filelock/filelocktest"
	"github.com/agentcli/agent/rollout"
)

// TestOneHolderAtATime: a session is held by one recorder at a time. A
// second Open fails naming the holder's pid; after Close it succeeds.
func TestOneHolderAtATime(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "held-1"}, time.Now())
	must(t, err)
	_, err = rollout.Open(t.Context(), r.Path())
	var inUse *rollout.InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, rollout.ErrInUse) || inUse.PID != os.Getpid() {
		t.Fatalf("second Open = %v; want an InUseError naming pid %d", err, os.Getpid())
	}
	if want := fmt.Sprintf("session held-1 is in use by process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	must(t, r.Close())
	r2, err := rollout.Open(t.Context(), r.Path())
	must(t, err)
	must(t, r2.Close())
}

// TestDeadHolderDoesNotBlock: a child process holds the session and is
// killed; while it lives Open names its pid, once it is dead Open works.
func TestDeadHolderDoesNotBlock(t *testing.T) {
	if path := os.Getenv("ROLLOUT_HOLD"); path != "" {
		r, err := rollout.Open(t.Context(), path)
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
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "held-2"}, time.Now())
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
	_, err = rollout.Open(t.Context(), r.Path())
	var inUse *rollout.InUseError
	if !errors.As(err, &inUse) || inUse.PID != cmd.Process.Pid {
		t.Errorf("Open while the child holds it = %v; want the child's pid %d", err, cmd.Process.Pid)
	}
	must(t, cmd.Process.Kill())
	_ = cmd.Wait()
	r2, err := rollout.Open(t.Context(), r.Path())
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
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "held-3"}, time.Now())
	must(t, err)
	must(t, r.Close())
	for range 2 {
		r2, err := rollout.Open(t.Context(), r.Path())
		must(t, err)
		_, err = rollout.Open(t.Context(), r.Path())
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

// TestStrayLockHolderDoesNotHang: a background process holding the
// session index's lock, or a rollout's lock file, delays recording by at
// most filelock.DefaultMaxWait: the index is written unlocked, and a
// session whose lock file is held fails naming the holder.
func TestStrayLockHolderDoesNotHang(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "stray-1"}, time.Now())
	must(t, err)
	must(t, r.Close())
	filelocktest.Holder(t, filepath.Join(home, "sessions", "index.lock"))
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "stray-2"}, time.Now())
		must(t, err)
		must(t, r.Close())
		if d := time.Since(start); d > filelock.DefaultMaxWait {
			t.Errorf("Create took %v with the index lock held; want at most %v", d, filelock.DefaultMaxWait)
		}
	})
	if _, err := rollout.Find(t.Context(), home, "stray-2"); err != nil {
		t.Errorf("the session recorded with the index lock held is not found: %v", err)
	}
	pid := filelocktest.Holder(t, r.Path()+".lock")
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := rollout.Open(t.Context(), r.Path())
		var held *filelock.HeldError
		if !errors.As(err, &held) || held.PID != pid || time.Since(start) != filelock.DefaultMaxWait {
			t.Errorf("Open with its lock file held = %v after %v; want a HeldError naming pid %d after %v", err, time.Since(start), pid, filelock.DefaultMaxWait)
		}
	})
}

// TestLockWaitsEndWithCtrlC: with the index lock or a rollout's lock file
// held by a background process, Ctrl-C (the command's context ending)
// ends the wait at once: a lookup and Open return the context's error,
// and Create goes on without the index (it is written at the next Sync).
func TestLockWaitsEndWithCtrlC(t *testing.T) {
	home := t.TempDir()
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "ctrlc-1"}, time.Now())
	must(t, err)
	must(t, r.Close())
	const ctrlC = 300 * time.Millisecond
	interrupted := func(t *testing.T) context.Context {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(ctrlC, cancel)
		return ctx
	}
	index := filelocktest.Holder(t, filepath.Join(home, "sessions", "index.lock"))
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := rollout.Latest(interrupted(t), home, "", true)
		if !errors.Is(err, context.Canceled) || time.Since(start) != ctrlC {
			t.Errorf("Latest with the index lock held by %d = %v after %v; want canceled after %v", index, err, time.Since(start), ctrlC)
		}
		start = time.Now()
		r, err := rollout.Create(interrupted(t), home, rollout.SessionMeta{ID: "ctrlc-2"}, time.Now())
		if err != nil || time.Since(start) != ctrlC {
			t.Errorf("Create with the index lock held = %v after %v; want the session after %v", err, time.Since(start), ctrlC)
		} else {
			r.Close()
		}
	})
	filelocktest.Holder(t, r.Path()+".lock")
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := rollout.Open(interrupted(t), r.Path())
		if !errors.Is(err, context.Canceled) || time.Since(start) != ctrlC {
			t.Errorf("Open with its lock file held = %v after %v; want canceled after %v", err, time.Since(start), ctrlC)
		}
	})
}
