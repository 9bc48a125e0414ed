package rollout

import (
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
// The holder's pid is kept in the rollout's lock file. A brief flock on
// that file guards taking the hold and writing the pid, so whoever finds
// the session held also finds its holder's pid. The lock file stays on
// disk (removing it could let two processes guard with different files).
func hold(f *os.File, path, id string) error {
	lp := lockPath(path)
	g, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("rollout: lock %s: %w", lp, err)
	}
	defer g.Close() // drops the guard
	if err := filelock.Lock(g); err != nil {
		return fmt.Errorf("rollout: lock %s: %w", lp, err)
	}
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
