//go:build linux

package filelock_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/internal/filelock"
	"github.com/agentcli/agent/internal/filelock/filelocktest"
)

// TestLockBoundedNamingHolder: a lock a background process holds
// makes Lock give up after its bound with the holder's pid, say who
// holds it as soon as it waits, and end at once when its context does.
func TestLockBoundedNamingHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.lock")
	pid := filelocktest.Holder(t, path)
	f := open(t, path)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var told []int
		err := filelock.Lock(t.Context(), f, filelock.Wait{Waiting: func(p int) { told = append(told, p) }})
		var held *filelock.HeldError
		if !errors.As(err, &held) || held.PID != pid {
			t.Fatalf("Lock = %v; want a HeldError naming pid %d", err, pid)
		}
		if waited := time.Since(start); waited != filelock.DefaultMaxWait {
			t.Errorf("waited %v; want %v", waited, filelock.DefaultMaxWait)
		}
		if len(told) != 1 || told[0] != pid {
			t.Errorf("Waiting told %v; want [%d] once", told, pid)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name %s", err, path)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := filelock.Lock(ctx, f, filelock.Wait{Max: time.Hour})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 200*time.Millisecond {
			t.Errorf("Lock = %v after %v; want the context's end after 200ms", err, time.Since(start))
		}
	})
}

// TestLockPathBoundedNamingHolder: a path lock a background process holds
// (the retry gate's cooldown.lock under a stray `flock`) is waited for no
// longer than the bound, naming the holder, and no longer than ctx lasts.
func TestLockPathBoundedNamingHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cooldown.lock")
	pid := filelocktest.Holder(t, path)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		h, err := filelock.LockPath(t.Context(), path, filelock.Wait{})
		var held *filelock.HeldError
		if !errors.As(err, &held) || held.PID != pid || held.Path != path || h != nil {
			t.Fatalf("LockPath = %v, %v; want a HeldError naming pid %d and %s", h, err, pid, path)
		}
		if waited := time.Since(start); waited != filelock.DefaultMaxWait {
			t.Errorf("waited %v; want %v", waited, filelock.DefaultMaxWait)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*time.Millisecond, cancel) // Ctrl-C
		start := time.Now()
		_, err := filelock.LockPath(ctx, path, filelock.Wait{Max: time.Hour})
		if !errors.Is(err, context.Canceled) || time.Since(start) != 300*time.Millisecond {
			t.Errorf("LockPath = %v after %v; want canceled at once, after 300ms", err, time.Since(start))
		}
	})
}
