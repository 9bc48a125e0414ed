package tools

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// approxTokens estimates the tokens of s the way the reference client does
// for budgeting: four bytes a token, rounded up.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

// omittedMarker stands for the n bytes of a command's output that agent
// did not keep (see [HeadTail]).
func omittedMarker(n int64) string { return fmt.Sprintf("\n…%d bytes omitted…\n", n) }

// truncateMiddle keeps the head and the tail of s within maxTokens,
// replacing the middle with a marker. It reports whether it cut anything.
// omitted counts the bytes already left out of s (at its [omittedMarker]),
// which the marker's count of truncated tokens includes.
func truncateMiddle(s string, maxTokens int, omitted int64) (string, bool) {
	if maxTokens <= 0 || approxTokens(s) <= maxTokens {
		return s, false
	}
	budget := maxTokens * 4
	head, tail := budget/2, budget-budget/2
	middle := int64(len(s) - head - tail)
	if omitted > 0 {
		middle += omitted - int64(len(omittedMarker(omitted)))
	}
	cut := int((middle + 3) / 4)
	return fmt.Sprintf("%s\n…%d tokens truncated…\n%s", s[:head], cut, s[len(s)-tail:]), true
}

// TruncateOutput cuts s to maxTokens (four bytes a token) as Codex cuts a
// tool output: the first half of the byte budget and the last half are
// kept, on UTF-8 boundaries, with "…N tokens truncated…" between them (N
// the tokens of the bytes over budget). An s within budget is returned
// as is.
func TruncateOutput(s string, maxTokens int) string {
	budget := maxTokens * 4
	if len(s) <= budget {
		return s
	}
	left, right := budget/2, budget-budget/2
	end := left
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	start := len(s) - right
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s…%d tokens truncated…%s", s[:end], approxTokens(s[budget:]), s[start:])
}

// execOutput renders a command's result in the reference client's text
// format (ExecCommandToolOutput::response_text).
type execOutput struct {
	chunkID   string
	wall      time.Duration
	exitCode  *int
	sessionID int // running process, when exitCode is nil
	output    string
	omitted   int64 // bytes of output not kept between head and tail (output holds the marker)
	maxTokens int
}

// originalTokens estimates the tokens of the whole output, kept or not.
func (o execOutput) originalTokens() int {
	n := int64(len(o.output)) + o.omitted
	if o.omitted > 0 {
		n -= int64(len(omittedMarker(o.omitted)))
	}
	return int((n + 3) / 4)
}

func (o execOutput) String() string {
	var b strings.Builder
	if o.chunkID != "" {
		fmt.Fprintf(&b, "Chunk ID: %s\n", o.chunkID)
	}
	fmt.Fprintf(&b, "Wall time: %.4f seconds\n", o.wall.Seconds())
	if o.exitCode != nil {
		fmt.Fprintf(&b, "Process exited with code %d\n", *o.exitCode)
	} else {
		fmt.Fprintf(&b, "Process running with session ID %d\n", o.sessionID)
	}
	out, cut := truncateMiddle(o.output, o.maxTokens, o.omitted)
	cut = cut || o.omitted > 0
	if cut {
		fmt.Fprintf(&b, "Original token count: %d\n", o.originalTokens())
	}
	b.WriteString("Output:\n")
	b.WriteString(out)
	if cut {
		fmt.Fprintf(&b, "\nWarning: truncated output (original token count: %d)", o.originalTokens())
	}
	return b.String()
}
