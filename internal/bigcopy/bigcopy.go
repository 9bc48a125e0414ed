// Package bigcopy copies large byte runs a step at a time. A copy (the
// runtime's memmove) cannot be preempted: while one runs into fresh
// memory, which on a virtual machine faults page by page (about 25 µs a
// page here), the collector trying to stop the goroutine signals it every
// few microseconds and spins its other threads. A 10 MiB event joined in
// 64 KiB copies cost exec about a third of its CPU that way; in 16 KiB
// steps, 1.04 -> 0.68 s (BENCHMARKS.md, issue 30).
package bigcopy

import (
	"io"
	"runtime/debug"
	"runtime/metrics"
)

// Step is the most bytes copied in one go.
const Step = 16 << 10

// Write writes b to w a step at a time; it stops at the first error.
// For writers that copy into memory (a strings.Builder, a bytes.Buffer).
func Write(w io.Writer, b []byte) error {
	for len(b) > Step {
		if _, err := w.Write(b[:Step]); err != nil {
			return err
		}
		b = b[Step:]
	}
	_, err := w.Write(b)
	return err
}

// Append appends src to dst a step at a time.
func Append(dst, src []byte) []byte {
	for len(src) > Step {
		dst = append(dst, src[:Step]...)
		src = src[Step:]
	}
	return append(dst, src...)
}

// Collected is how many bytes of large buffers [Dropped] must be told of
// to run a collection.
const Collected = 8 << 20

// Dropped tells the runtime that n bytes of large buffers were just let
// go of (the read buffers of a 120 MiB event, once it is joined): from
// [Collected] up, it collects at once and returns the freed pages to the
// system. The pacer alone lets the heap grow to twice what was live at
// its last collection first; and collected but kept, the pages of 64 KiB
// buffers lie between other objects, where the next large copy (the event
// decoded, one run of 120 MiB) does not fit, so they stay in the process's
// resident set beside it: 4× the event instead of 2×. A collection of a
// heap holding a few large strings takes about a millisecond. With
// GOGC=off nothing is done. It reports whether it collected.
func Dropped(n int) bool {
	if n < Collected {
		return false
	}
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && int64(s[0].Value.Uint64()) < 0 {
		return false
	}
	debug.FreeOSMemory()
	return true
}
