package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentcli/agent/internal/syncbuf"
)

// TestConcurrentWrites: writers and a reader at once (run with -race);
// every write arrives whole.
func TestConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab"))
				_ = b.Len()
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); b.Len() != 800 || got != strings.Repeat("ab", 400) {
		t.Errorf("Len %d, %q...; want 800 bytes of ab", b.Len(), got[:min(len(got), 10)])
	}
}

// TestWriterSerialises: writes from several goroutines to a Writer reach
// its W one at a time (the race detector sees no concurrent use of W).
func TestWriterSerialises(t *testing.T) {
	var plain strings.Builder // not safe for concurrent use
	w := &syncbuf.Writer{W: &plain}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				w.Write([]byte("ab"))
			}
		})
	}
	wg.Wait()
	if got := plain.String(); got != strings.Repeat("ab", 400) {
		t.Errorf("%d bytes; want 800 bytes of ab", len(got))
	}
}
