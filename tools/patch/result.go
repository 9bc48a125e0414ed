package patch

import (
	"fmt"
	"strings"
)

// Result is what [Apply] changed (or [Preview] would change).
type Result struct {
	// Changes has one entry per file section of the patch, in patch order.
	Changes []Change
	// Unlinked names the files (slash-separated, relative to the root)
	// that had other hard links: each was written as a new file, so the
	// other links kept the old content.
	Unlinked []string
}

// Change is one file section as applied.
type Change struct {
	// Action is [Add], [Delete] or [Update]; its String is the kind of a
	// JSON file_change item ("add", "delete", "update").
	Action Action
	// Path is the file's path relative to the root, slash-separated; for a
	// move, the new path.
	Path string
	// MovedFrom is the old path of a moved file, or "".
	MovedFrom string

	script   []diffLine
	replaced bool // an Add over an existing file
}

// String renders the change as the reference's summary line: "A path",
// "M path" or "D path".
func (c Change) String() string {
	letter := map[Action]string{Add: "A", Delete: "D", Update: "M"}[c.Action]
	return letter + " " + c.Path
}

// Files returns the summary lines, added files first, then modified, then
// deleted, as the reference prints them.
func (r *Result) Files() []string {
	var out []string
	for _, a := range []Action{Add, Update, Delete} {
		for _, c := range r.Changes {
			if c.Action == a {
				out = append(out, c.String())
			}
		}
	}
	return out
}

// String renders the reference's success text fed back to the model:
// "Success. Updated the following files:\nA path\nM path\nD path\n".
func (r *Result) String() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, f := range r.Files() {
		b.WriteString(f + "\n")
	}
	for _, f := range r.Unlinked {
		b.WriteString("Note: " + f + " had other hard links; it was written as a new file, so the other links keep the old content.\n")
	}
	return b.String()
}

// Diff returns the unified diff of every change, in patch order.
func (r *Result) Diff() string {
	var b strings.Builder
	for _, c := range r.Changes {
		b.WriteString(c.Diff())
	}
	return b.String()
}

// diffContext is the number of unchanged lines around each diff hunk.
const diffContext = 3

// Diff returns the change as a unified diff with three lines of context,
// "/dev/null" standing for the missing side of an add or a delete.
func (c Change) Diff() string {
	from, to := "a/"+c.Path, "b/"+c.Path
	switch {
	case c.Action == Add && !c.replaced:
		from = "/dev/null"
	case c.Action == Delete:
		to = "/dev/null"
	case c.MovedFrom != "":
		from = "a/" + c.MovedFrom
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	s := c.script
	oldN, newN := 0, 0 // lines of each side before s[i]
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j].kind == Keep {
			j++
		}
		if j == len(s) {
			break
		}
		start := max(i, j-diffContext)
		last := j
		for k := j; k < len(s); k++ {
			if s[k].kind != Keep {
				last = k
			} else if k-last > 2*diffContext {
				break
			}
		}
		end := min(last+diffContext+1, len(s))
		for _, d := range s[i:start] {
			oldN, newN = advance(d, oldN, newN)
		}
		writeHunk(&b, s[start:end], oldN, newN)
		for _, d := range s[start:end] {
			oldN, newN = advance(d, oldN, newN)
		}
		i = end
	}
	return b.String()
}

func advance(d diffLine, oldN, newN int) (int, int) {
	if d.kind != Insert {
		oldN++
	}
	if d.kind != Remove {
		newN++
	}
	return oldN, newN
}

// writeHunk writes one "@@ -a,b +c,d @@" hunk; oldN and newN count the
// lines of each side before it.
func writeHunk(b *strings.Builder, h []diffLine, oldN, newN int) {
	oldC, newC := 0, 0
	for _, d := range h {
		oldC, newC = advance(d, oldC, newC)
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldN, oldC), hunkRange(newN, newC))
	for _, d := range h {
		b.WriteString(string(rune(d.kind)) + d.text + "\n")
		if d.eol == "" {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

// hunkRange renders a side of a hunk header the way diff(1) does: the
// start line, and the count unless it is 1; an empty side names the line
// before it.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}
