package bigcopy_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/bigcopy"
)

// stepWriter records the size of each write.
type stepWriter struct {
	bytes.Buffer
	largest int
}

func (w *stepWriter) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// TestStepsOfAtMostStep: Write and Append copy everything, in order, and
// never more than Step bytes in one copy.
func TestStepsOfAtMostStep(t *testing.T) {
	for _, n := range []int{0, 1, bigcopy.Step, bigcopy.Step + 1, 5*bigcopy.Step + 7} {
		b := []byte(strings.Repeat("abcdefg", n/7+1)[:n])
		var w stepWriter
		if err := bigcopy.Write(&w, b); err != nil || !bytes.Equal(w.Bytes(), b) || w.largest > bigcopy.Step {
			t.Errorf("Write of %d bytes: %d written, largest write %d, %v", n, w.Len(), w.largest, err)
		}
		if got := bigcopy.Append([]byte("x"), b); string(got) != "x"+string(b) {
			t.Errorf("Append of %d bytes: %d bytes", n, len(got))
		}
	}
}
