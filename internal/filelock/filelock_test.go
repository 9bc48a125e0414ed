//go:build unix

package filelock_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/internal/filelock"
)

// open opens path anew: a flock belongs to the open file, so two opens in
// one process contend as two processes would.
func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestTryLockSeesAnotherHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b := open(t, path), open(t, path)
	if ok, err := filelock.TryLock(a); err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if ok, err := filelock.TryLock(b); err != nil || ok {
		t.Fatalf("TryLock while held = %v, %v; want false, nil", ok, err)
	}
	if err := filelock.Unlock(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := filelock.TryLock(b); err != nil || !ok {
		t.Fatalf("TryLock after Unlock = %v, %v; want true, nil", ok, err)
	}
}

func TestCloseReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b := open(t, path), open(t, path)
	if ok, err := filelock.TryLock(a); err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	a.Close()
	if ok, err := filelock.TryLock(b); err != nil || !ok {
		t.Fatalf("TryLock after the holder closed = %v, %v; want true, nil", ok, err)
	}
}

// TestLockWaitsForTheHolder: Lock waits while another open file holds the
// lock and takes it at its next try once the holder lets go.
func TestLockWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b := open(t, path), open(t, path)
	if ok, err := filelock.TryLock(a); err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		got := make(chan error)
		go func() { got <- filelock.Lock(t.Context(), b, filelock.Wait{}) }()
		synctest.Wait()
		// Lock must still be waiting: a's lock is held. Releasing it lets b in.
		if ok, _ := filelock.TryLock(open(t, path)); ok {
			t.Fatal("a third open took the lock while a held it")
		}
		filelock.Unlock(a)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 50*time.Millisecond {
			t.Errorf("Lock took %v; want its next try, 50ms", d)
		}
	})
	if ok, _ := filelock.TryLock(a); ok {
		t.Fatal("b's Lock returned without holding the lock")
	}
}
