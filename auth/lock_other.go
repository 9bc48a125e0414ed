//go:build !unix

package auth

import "os"

// tryLock has no cross-process lock to take on this platform: refreshes
// are still serialised inside one process.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
