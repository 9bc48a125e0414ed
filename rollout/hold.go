package rollout

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// lockPath is the lock file of the rollout at path.
func lockPath(path string) string { return path + ".lock" }

// hold makes this process the session's only writer: it takes an exclusive
// flock on the rollout's lock file, without waiting, and writes its pid
// there. The kernel drops the lock when the process dies, so a crashed
// holder never blocks the session; the file itself stays (removing it
// could let two processes lock different files).
func hold(path, id string) (*os.File, error) {
	lp := lockPath(path)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rollout: lock %s: %w", lp, err)
	}
	held, err := tryLockFile(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("rollout: lock %s: %w", lp, err)
	}
	if held {
		b, _ := os.ReadFile(lp)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		_ = f.Close()
		return nil, &InUseError{ID: id, Lock: lp, PID: pid}
	}
	// The pid is for the message of whoever comes next; a failure to write
	// it only makes that message vaguer.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
