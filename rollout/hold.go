package rollout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentcli/agent/internal/filelock"
)

// ErrInUse: another process holds the session. It comes wrapped in a
// [*InUseError] naming the holder.
var ErrInUse = errors.New("rollout: session in use")

// InUseError says which process holds a session.
type InUseError struct {
	// ID is the session id; Lock the lock file.
	ID, Lock string
	// PID is the holder's process id, 0 when its lock file does not say.
	PID int
}

func (e *InUseError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("session %s is in use by %s (lock %s): finish or quit it there first", e.ID, who, e.Lock)
}

// Unwrap makes the error match [ErrInUse].
func (e *InUseError) Unwrap() error { return ErrInUse }

// lockPath is the lock file of the rollout at path: it names the
// holder's pid.
func lockPath(path string) string { return path + ".lock" }

// hold makes this process the session's only writer: it takes an
// exclusive flock on f (the rollout file, open for the session), without
// waiting. The kernel drops the lock when f is closed or the process dies,
// so a crashed holder never blocks the session.
//
// The holder's pid is kept in the rollout's lock file while it holds the
// session. A brief flock on that file (the guard, [openGuard]) covers
// taking the hold and writing the pid, so whoever finds the session held
// also finds its holder's pid; [release] removes the file under the guard,
// so a closed session leaves nothing beside its rollout (another client's
// sessions directory stays as that client keeps it).
func hold(ctx context.Context, f *os.File, path, id string) error {
	lp := lockPath(path)
	g, err := openGuard(ctx, lp)
	if err != nil {
		return err
	}
	defer g.Close() // drops the guard
	ok, err := filelock.TryLock(f)
	if err != nil {
		return fmt.Errorf("rollout: lock %s: %w", path, err)
	}
	if !ok {
		b, _ := os.ReadFile(lp)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return &InUseError{ID: id, Lock: lp, PID: pid}
	}
	// The pid is for the message of whoever comes next; a failure to write
	// it only makes that message vaguer.
	if g.Truncate(0) == nil {
		_, _ = g.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return nil
}

// release lets go of the session held through f: under the guard it
// removes the lock file, then closes f.
func release(f *os.File, path string) error {
	lp := lockPath(path)
	g, err := openGuard(context.Background(), lp) // bounded; the session ends either way
	if err != nil {
		return errors.Join(err, f.Close())
	}
	defer g.Close()
	_ = os.Remove(lp) // a leftover only costs the next holder's message nothing
	return f.Close()
}

// openGuard opens the lock file lp (creating it) and locks it, waiting for
// its holder, but no longer than [filelock.DefaultMaxWait] and ctx allow:
// agent holds it for milliseconds, so a longer holder is something else,
// named in the error. A file that was removed while this process waited for it
// ([release]) is no guard: it opens the one now at lp instead.
func openGuard(ctx context.Context, lp string) (*os.File, error) {
	for {
		g, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("rollout: lock %s: %w", lp, err)
		}
		if err := filelock.Lock(ctx, g, filelock.Wait{}); err != nil {
			_ = g.Close()
			return nil, fmt.Errorf("rollout: lock %s: %w", lp, err)
		}
		held, err1 := g.Stat()
		now, err2 := os.Stat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return g, nil
		}
		_ = g.Close()
		if err1 != nil {
			return nil, fmt.Errorf("rollout: lock %s: %w", lp, err1)
		}
	}
}
