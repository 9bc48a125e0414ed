package filelock

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Held is a lock on a path taken with [LockPath] or [TryLockPath]. The
// lock file holds the holder's pid ([Holder]); it is never removed, so
// every process locks the same file.
type Held struct{ f *os.File }

// TryLockPath takes the exclusive lock on the file at path, creating it
// (0600) if needed, without waiting: nil, nil when another process (or
// another [Held] in this one) holds it.
func TryLockPath(path string) (*Held, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	ok, err := TryLock(f)
	if err != nil || !ok {
		f.Close()
		return nil, err
	}
	return hold(f), nil
}

// LockPath takes the exclusive lock on the lock file at path, creating it
// (0600) if needed, waiting while another holds it as [Lock] does: no
// longer than w.Max and ctx allow, then a [*HeldError] naming the holder
// (from the system, else the pid the file records) or ctx's error.
func LockPath(ctx context.Context, path string, w Wait) (*Held, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	holder := func() int {
		if pid := HolderPID(f); pid > 0 {
			return pid
		}
		return Holder(path)
	}
	if err := lockWait(ctx, f, w, holder); err != nil {
		f.Close()
		return nil, err
	}
	return hold(f), nil
}

func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// hold records this process as the holder in the lock file.
func hold(f *os.File) *Held {
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Held{f: f}
}

// Unlock releases the lock. Calling it again does nothing.
func (h *Held) Unlock() error {
	if h == nil || h.f == nil {
		return nil
	}
	f := h.f
	h.f = nil
	return f.Close() // closing the file releases its lock
}

// Holder returns the pid of the process that last took the lock on path
// (the holder, while the lock is held), or 0 when the file names none.
func Holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
