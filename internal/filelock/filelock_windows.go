//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh places the byte the lock locks at 2^62, far past any
// content of the file: LockFileEx's locks are byte ranges, and a locked
// range cannot be read or written through another handle, so the lock
// stays out of the way of the file's data (a rollout, the history file,
// the holder's pid at the start of a lock file, [Holder]).
const lockOffsetHigh = 1 << 30

// TryLock takes an exclusive lock on f without waiting; ok is false when
// another open file (another process) holds it.
func TryLock(f *os.File) (ok bool, err error) {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK | windows.LOCKFILE_FAIL_IMMEDIATELY)
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

// Unlock releases the lock on f; closing f releases it too.
func Unlock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
