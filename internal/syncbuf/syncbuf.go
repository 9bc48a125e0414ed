// Package syncbuf provides [Buffer], a bytes.Buffer safe for concurrent
// use: what a test hands a child process, a logger or a server as its
// output while it reads what has arrived so far; and [Writer], which
// serialises the writes of several goroutines to one stream.
package syncbuf

import (
	"bytes"
	"io"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex. The zero value is an
// empty buffer ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Len returns how many bytes were written so far.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// Writer serialises the writes to W: what several goroutines write to one
// stream (a command's stderr taking notices from background servers while
// a turn prints) arrives whole. The zero value needs W set.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

// Write writes p to W, one write at a time.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.W.Write(p)
}
