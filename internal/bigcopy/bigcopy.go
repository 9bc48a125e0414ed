// Package bigcopy copies large byte runs a step at a time. A copy (the
// runtime's memmove) cannot be preempted: while one runs into fresh
// memory, which on a virtual machine faults page by page (about 25 µs a
// page here), the collector trying to stop the goroutine signals it every
// few microseconds and spins its other threads. A 10 MiB event joined in
// 64 KiB copies cost exec about a third of its CPU that way; in 16 KiB
// steps, 1.04 -> 0.68 s (BENCHMARKS.md, issue 30).
package bigcopy

import "io"

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
