package tools_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
)

// TestHeadTailKeepsBothEnds writes in chunks of every size and checks that
// the head, the tail and the counts match what a full copy would give.
func TestHeadTailKeepsBothEnds(t *testing.T) {
	var all bytes.Buffer
	for i := range 5000 {
		all.WriteByte(byte('a' + i%26))
	}
	data := all.Bytes()
	for _, chunk := range []int{1, 3, 7, 10, 64, 999, len(data)} {
		h := tools.NewHeadTail(100, 50)
		for p := data; len(p) > 0; {
			k := min(chunk, len(p))
			if n, err := h.Write(p[:k]); n != k || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			p = p[k:]
		}
		if !bytes.Equal(h.Head(), data[:100]) || !bytes.Equal(h.Tail(), data[len(data)-50:]) {
			t.Errorf("chunk %d: head %q, tail %q", chunk, h.Head(), h.Tail())
		}
		if h.Total() != int64(len(data)) || h.Omitted() != int64(len(data)-150) {
			t.Errorf("chunk %d: total %d, omitted %d", chunk, h.Total(), h.Omitted())
		}
	}
	h := tools.NewHeadTail(4, 4)
	h.Write([]byte("abcdef"))
	if string(h.Head())+"|"+string(h.Tail()) != "abcd|ef" || h.Omitted() != 0 {
		t.Errorf("short output: %q|%q, omitted %d", h.Head(), h.Tail(), h.Omitted())
	}
	h.Reset()
	h.Write([]byte("xy"))
	if string(h.Head()) != "xy" || len(h.Tail()) != 0 || h.Total() != 2 {
		t.Errorf("after Reset: %q|%q, total %d", h.Head(), h.Tail(), h.Total())
	}
}

// TestExecBoundsCapturedOutput: a command printing more than the capture
// keeps gives the model its head and tail and the size of the whole.
func TestExecBoundsCapturedOutput(t *testing.T) {
	ex := tools.NewExec(tools.ExecOptions{Cwd: t.TempDir(), Shell: "/bin/sh", Policy: tools.PolicyNever})
	defer ex.Close()
	n := 3 * (tools.CaptureHeadBytes + tools.CaptureTailBytes)
	res := run(t, ex, map[string]any{"cmd": "printf HEAD; head -c " + strconv.Itoa(n) + " /dev/zero | tr '\\0' x; printf TAIL", "max_output_tokens": 1 << 20})
	kept := tools.CaptureHeadBytes + tools.CaptureTailBytes
	if len(res.CommandOutput) > kept+100 {
		t.Errorf("kept %d bytes of output; want at most %d and a marker", len(res.CommandOutput), kept)
	}
	omitted := n + 8 - kept
	if !strings.Contains(res.Output, "\n…"+strconv.Itoa(omitted)+" bytes omitted…\n") {
		t.Errorf("no marker for the %d bytes omitted", omitted)
	}
	if want := "Original token count: " + strconv.Itoa((n+8+3)/4) + "\n"; !strings.Contains(res.Output, want) {
		t.Errorf("output lacks %q", want)
	}
	if !strings.Contains(res.Output, "Output:\nHEADxxx") || !strings.Contains(res.Output, "xxxTAIL\nWarning: truncated output") {
		t.Errorf("head or tail missing")
	}
}
