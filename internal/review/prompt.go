package review

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// instructions are agent's review instructions, sent with every review.
const instructions = `You are reviewing a code change, not writing one: do not modify any file.

Read the change below. When you need more context, read the code around it or run the git commands listed here yourself (read-only). Report the problems the change introduces or leaves exposed: bugs, wrong edge cases, security issues, data loss, races, broken error handling, missing tests for new behaviour, documentation that no longer holds. Leave out matters of taste and style unless they hide a bug. Do not report what was already wrong before the change unless the change makes it worse.

Write each finding as one line

[P1] path/to/file.go:42 - A short title

followed by one to three lines of explanation, each indented by two spaces. The path is relative to the repository's top directory and the line is one the change touches. The priority is P0 (must be fixed before this is merged: it breaks something), P1 (should be fixed now), P2 (worth fixing) or P3 (minor). List the findings most important first.

End with one line "Verdict: correct" or "Verdict: needs changes" and one sentence on the change as a whole. When there is nothing to report, write "No findings." before the verdict.`

// Prompt is the user message of a review turn of c (and t's own
// instructions, if any): the title line, agent's review instructions, the
// user's, the commands that show the change and the diff.
func Prompt(c Change, t Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Code review: %s\n\n%s\n", c.Summary, instructions)
	if s := strings.TrimSpace(t.Instructions); s != "" {
		fmt.Fprintf(&b, "\nThe user asks for this review in particular:\n%s\n", s)
	}
	fmt.Fprintf(&b, "\nThe repository is %s. The change, as these commands show it:\n", c.Root)
	for _, cmd := range c.Commands {
		fmt.Fprintf(&b, "  %s\n", cmd)
	}
	if c.Size > len(c.Diff) {
		fmt.Fprintf(&b, "\nThe diff below is cut at %d KiB of %d KiB: run the commands above for the rest.\n", (len(c.Diff)+512)>>10, (c.Size+512)>>10)
	}
	fence := "```"
	for strings.Contains(c.Diff, fence) {
		fence += "`"
	}
	fmt.Fprintf(&b, "\n%sdiff\n%s", fence, c.Diff)
	if !strings.HasSuffix(c.Diff, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence + "\n")
	return b.String()
}

// Finding is one problem a review reports.
type Finding struct {
	// Priority is 0 (must fix) to 3 (minor).
	Priority int
	// File and Line locate it; Line is 0 when the review gave none.
	File  string
	Line  int
	Title string
	// Body is the explanation, its lines unindented.
	Body string
}

// findingLine matches a finding's first line. It is compiled at the first
// review, not at start-up: every agent process ran its compilation before
// (20 KB, 125 allocations in the init trace of an exec).
var findingLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-*]\s*)?\**\[P([0-3])\]\**\s+` + "`?" + `([^\s:` + "`" + `]+)(?::(\d+)(?:[-–]\d+)?)?` + "`?" + `\s*(?:[-–—:]+\s*)?(.*)$`)
})

// Parse reads the findings and the verdict line of a review's answer, in
// the format the review instructions ask for. An answer in another shape
// gives no findings and ok false.
func Parse(answer string) (findings []Finding, verdict string, ok bool) {
	var cur *Finding
	for line := range strings.SplitSeq(answer, "\n") {
		if m := findingLine().FindStringSubmatch(line); m != nil {
			p, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[3])
			findings = append(findings, Finding{Priority: p, File: m[2], Line: n, Title: strings.TrimSpace(m[4])})
			cur = &findings[len(findings)-1]
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(strings.ToLower(strings.Trim(t, "*")), "verdict:"):
			verdict, cur, ok = strings.Trim(t, "*"), nil, true
		case strings.EqualFold(t, "No findings."):
			cur, ok = nil, true
		case cur != nil && t != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			cur.Body = strings.TrimSpace(cur.Body + "\n" + t)
		case t != "":
			if verdict != "" {
				verdict += " " + t // the sentence after the verdict
			}
			cur = nil
		}
	}
	return findings, verdict, ok || len(findings) > 0
}

// Render shows a review's answer as a list of its findings, most
// important first (the model's order kept within a priority), then the
// verdict. An answer not in the review format is returned as it is.
func Render(answer string) string {
	findings, verdict, ok := Parse(answer)
	if !ok {
		return answer
	}
	slices.SortStableFunc(findings, func(a, b Finding) int { return cmp.Compare(a.Priority, b.Priority) })
	var b strings.Builder
	if len(findings) == 0 {
		b.WriteString("No findings.\n")
	}
	for _, f := range findings {
		loc := f.File
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		fmt.Fprintf(&b, "[P%d] %s  %s\n", f.Priority, loc, f.Title)
		for l := range strings.SplitSeq(f.Body, "\n") {
			if l != "" {
				fmt.Fprintf(&b, "     %s\n", l)
			}
		}
	}
	if verdict != "" {
		fmt.Fprintf(&b, "\n%s\n", verdict)
	}
	return strings.TrimRight(b.String(), "\n")
}
