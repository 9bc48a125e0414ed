//go:build unix || windows

package filelock_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/filelock"
)

// TestTryLockPath: a held path lock keeps a second taker out until it is
// released; the lock file names the holder's pid.
func TestTryLockPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slot-0")
	a, err := filelock.TryLockPath(path)
	if err != nil || a == nil {
		t.Fatalf("TryLockPath = %v, %v; want the lock", a, err)
	}
	if pid := filelock.Holder(path); pid != os.Getpid() {
		t.Errorf("Holder = %d; want %d", pid, os.Getpid())
	}
	if b, err := filelock.TryLockPath(path); err != nil || b != nil {
		t.Fatalf("TryLockPath while held = %v, %v; want nil, nil", b, err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(); err != nil {
		t.Errorf("a second Unlock: %v", err)
	}
	b, err := filelock.TryLockPath(path)
	if err != nil || b == nil {
		t.Fatalf("TryLockPath after Unlock = %v, %v; want the lock", b, err)
	}
	b.Unlock()
}

// TestLockPathWaits: LockPath waits while another holds the lock and
// gets it when it is released.
func TestLockPathWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := filelock.LockPath(context.Background(), path, filelock.Wait{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *filelock.Held)
	go func() {
		b, err := filelock.LockPath(context.Background(), path, filelock.Wait{})
		if err != nil {
			t.Error(err)
		}
		got <- b
	}()
	// Whatever LockPath is doing, the lock stays a's until a releases it.
	if c, _ := filelock.TryLockPath(path); c != nil {
		t.Fatal("a third taker got the lock while a held it")
	}
	a.Unlock()
	b := <-got
	if c, _ := filelock.TryLockPath(path); c != nil {
		t.Fatal("LockPath returned without holding the lock")
	}
	b.Unlock()
}

// TestLockPathEndsWithItsContext: a wait for a lock that is not released
// ends with its context, and the abandoned wait does not keep the lock
// once it comes.
func TestLockPathEndsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := filelock.TryLockPath(path)
	if err != nil || a == nil {
		t.Fatalf("TryLockPath = %v, %v", a, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := filelock.LockPath(ctx, path, filelock.Wait{Max: time.Hour})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("LockPath after cancel: %v; want context.Canceled", err)
	}
	a.Unlock()
	// The abandoned waiter may take the lock and must let it go: a
	// blocking LockPath gets it.
	c, err := filelock.LockPath(context.Background(), path, filelock.Wait{})
	if err != nil {
		t.Fatal(err)
	}
	c.Unlock()
}

// TestHolderUnknown: a missing or foreign lock file names no holder.
func TestHolderUnknown(t *testing.T) {
	dir := t.TempDir()
	if pid := filelock.Holder(filepath.Join(dir, "none")); pid != 0 {
		t.Errorf("Holder of a missing file = %d", pid)
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("not a pid\n"), 0o600)
	if pid := filelock.Holder(junk); pid != 0 {
		t.Errorf("Holder of junk = %d", pid)
	}
}
