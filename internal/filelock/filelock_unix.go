//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f, waiting while another open file
// holds it.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// TryLock takes an exclusive lock on f without waiting; ok is false when
// another open file (another process) holds it.
func TryLock(f *os.File) (ok bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// Unlock releases the lock on f; closing f releases it too.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// lockPath locks a path's lock file: the same flock as [Lock] and
// [TryLock], waiting when block is set.
func lockPath(f *os.File, block bool) (ok bool, err error) {
	if block {
		return true, Lock(f)
	}
	return TryLock(f)
}
