//go:build !unix

package tui

import "os"

// lockFile has no cross-process lock to take on this platform.
func lockFile(*os.File) error { return nil }
