package filelock

import (
	"context"
	"fmt"
	"os"
	"time"
)

// DefaultMaxWait bounds [Lock] and [LockPath] when [Wait.Max] is zero: a
// lock that agent's own processes take is held for milliseconds, so one
// held longer is held by something else (a stuck process, a background
// `flock`), and waiting for it forever would hang agent.
const DefaultMaxWait = 5 * time.Second

// pollEvery is how often a wait tries the lock again.
const pollEvery = 50 * time.Millisecond

// Wait bounds and reports a [Lock] or [LockPath]. The zero value waits
// [DefaultMaxWait] on a timer.
type Wait struct {
	// Max is the longest wait; 0 means [DefaultMaxWait].
	Max time.Duration
	// Sleep waits d or until ctx is done (tests inject a clock); nil
	// uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Waiting, if set, is called once when the lock is found held, with
	// the holding process's pid (0 when the system does not tell).
	Waiting func(pid int)
}

// HeldError says a lock stayed held by another process for as long as
// [Lock] or [LockPath] would wait.
type HeldError struct {
	// Path is the locked file.
	Path string
	// PID is the holder's process id, 0 when unknown.
	PID int
	// Waited is how long the wait lasted.
	Waited time.Duration
}

// Error implements error.
func (e *HeldError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("%s is locked by %s; gave up after %v (that process must end or let go of it)", e.Path, who, e.Waited)
}

// Lock takes an exclusive lock on f, waiting while another open file
// holds it, but no longer than w.Max and no longer than ctx lasts: it
// then returns a [*HeldError] naming the holder, or ctx's error, and f is
// not locked.
func Lock(ctx context.Context, f *os.File, w Wait) error {
	return lockWait(ctx, f, w, func() int { return HolderPID(f) })
}

// lockWait is the one wait of [Lock] and [LockPath]: it polls [TryLock]
// (a blocking lock could not be abandoned when ctx ends), asking holder
// who holds the lock.
func lockWait(ctx context.Context, f *os.File, w Wait, holder func() int) error {
	limit := w.Max
	if limit <= 0 {
		limit = DefaultMaxWait
	}
	sleep := w.Sleep
	if sleep == nil {
		sleep = sleepTimer
	}
	var waited time.Duration
	for {
		ok, err := TryLock(f)
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if ok {
			return nil
		}
		if waited == 0 && w.Waiting != nil {
			w.Waiting(holder())
		}
		if waited >= limit {
			return &HeldError{Path: f.Name(), PID: holder(), Waited: waited}
		}
		d := min(pollEvery, limit-waited)
		if err := sleep(ctx, d); err != nil {
			return err
		}
		waited += d
	}
}

// sleepTimer waits d or until ctx is done.
func sleepTimer(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
