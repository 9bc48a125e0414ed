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

// truncateMiddle keeps the head and the tail of s within maxTokens,
// replacing the middle with a marker. It reports whether it cut anything.
func truncateMiddle(s string, maxTokens int) (string, bool) {
	if maxTokens <= 0 || approxTokens(s) <= maxTokens {
		return s, false
	}
	budget := maxTokens * 4
	head, tail := budget/2, budget-budget/2
	cut := approxTokens(s[head : len(s)-tail])
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
	maxTokens int
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
	out, cut := truncateMiddle(o.output, o.maxTokens)
	if cut {
		fmt.Fprintf(&b, "Original token count: %d\n", approxTokens(o.output))
	}
	b.WriteString("Output:\n")
	b.WriteString(out)
	if cut {
		fmt.Fprintf(&b, "\nWarning: truncated output (original token count: %d)", approxTokens(o.output))
	}
	return b.String()
}
