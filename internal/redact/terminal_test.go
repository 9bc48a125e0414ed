package redact_test

import (
	"io"
	"os"
	"testing"

	"github.com/agentcli/agent/internal/redact"
)

// TestTerminal: each frame written to the terminal reaches it masked and
// whole at once (nothing held back for the next write), on the same file
// descriptor, and closing it leaves the file open.
func TestTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	term := redact.New(canary).Terminal(w)
	if term.Fd() != w.Fd() {
		t.Errorf("Fd %d; want the file's %d", term.Fd(), w.Fd())
	}
	frame := "\x1b[2J key " + canary + " end"
	if n, err := term.Write([]byte(frame)); n != len(frame) || err != nil {
		t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(frame))
	}
	if err := term.Close(); err != nil {
		t.Fatal(err)
	}
	want := "\x1b[2J key [REDACTED] end"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
		t.Errorf("the terminal received %q (%v); want %q", got, err, want)
	}
}
