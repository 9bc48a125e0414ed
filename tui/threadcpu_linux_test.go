package tui

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling thread has used, and whether it is
// known: on a machine shared with other work a benchmark's CPU time,
// unlike its wall time, does not count the time it waited for a CPU. The
// caller locks its goroutine to its thread.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
