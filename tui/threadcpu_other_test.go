//go:build !linux

package tui

import "time"

// threadCPU is not known here (see the Linux one).
func threadCPU() (time.Duration, bool) { return 0, false }
