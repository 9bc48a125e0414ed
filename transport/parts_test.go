package transport_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/agentcli/agent/transport"
)

// countingWriter counts the writes it gets (each a syscall on a socket).
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return w.Buffer.Write(p) }

// TestPartsReaderFillsEachRead: a body of 100,000 small parts (a long
// resumed history) is read in reads as big as the caller's buffer, so it
// leaves in a few writes rather than one per part (it took 200,000 write
// syscalls per request); the parts themselves are left as they were, for
// a retry to read again.
func TestPartsReaderFillsEachRead(t *testing.T) {
	parts := make([][]byte, 100_000)
	var want strings.Builder
	for i := range parts {
		parts[i] = []byte(`{"type":"message","role":"user"},`)
		want.Write(parts[i])
	}
	for range 2 { // the second read is a retry's
		w := &countingWriter{}
		if _, err := io.CopyBuffer(w, transport.PartsReader(parts), make([]byte, 32<<10)); err != nil {
			t.Fatal(err)
		}
		if w.String() != want.String() {
			t.Fatalf("the body read differs from its parts (%d bytes, want %d)", w.Len(), want.Len())
		}
		if max := want.Len()/(32<<10) + 1; w.writes > max {
			t.Errorf("%d writes for a %d-byte body of %d parts; want at most %d", w.writes, want.Len(), len(parts), max)
		}
	}
	if n, err := transport.PartsReader(nil).Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("no parts: %d, %v; want 0, EOF", n, err)
	}
}
