package redact

import (
	"io"
	"os"
)

// Terminal is a terminal drawn on with the set's secrets masked in every
// frame; it is still the terminal (Fd), so a full-screen program can size
// it and set its modes. Each write is masked whole and passed on at once,
// unlike [Writer]: holding back the end of a frame would leave it
// unfinished on screen until the next one. Close leaves the file open.
type Terminal struct {
	set *Set
	f   *os.File
}

// Terminal returns f with s's secrets masked in what is written to it.
func (s *Set) Terminal(f *os.File) Terminal { return Terminal{set: s, f: f} }

// Write writes p masked; it reports len(p) written when the masked text
// was.
func (t Terminal) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.f, t.set.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Read reads from the terminal.
func (t Terminal) Read(p []byte) (int, error) { return t.f.Read(p) }

// Close does nothing: the terminal outlives the program drawing on it.
func (t Terminal) Close() error { return nil }

// Fd is the terminal's file descriptor.
func (t Terminal) Fd() uintptr { return t.f.Fd() }
