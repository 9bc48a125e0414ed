//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh places the byte a path lock locks at 2^62, far past the
// holder's pid at the start of the lock file, so other processes can
// still read that ([Holder]): LockFileEx's locks are byte ranges, and a
// locked range cannot be read through another handle.
const lockOffsetHigh = 1 << 30

// lockPath locks a path's lock file with LockFileEx (one byte, exclusive),
// waiting when block is set. Only lock files of their own are locked so:
// a byte-range lock on a file being written ([Lock]'s callers, such as a
// rollout) would stop writes through any other handle.
func lockPath(f *os.File, block bool) (ok bool, err error) {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !block {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case !block && (errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING)):
		return false, nil
	}
	return false, err
}
