//go:build !unix

package rollout

import "os"

// lockFile has no cross-process lock to take on this platform: the index
// then relies on its rebuild and fallback scan alone.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }

// tryLockFile cannot keep other processes out on this platform.
func tryLockFile(*os.File) (bool, error) { return false, nil }
