package tui

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has used (user and
// system), and whether it is known: on a machine shared with other work a
// benchmark's CPU time, unlike its wall time, does not count the time it
// waited for a CPU. The caller locks its goroutine to its thread.
func threadCPU() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
