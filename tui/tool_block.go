package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentcli/agent/tools"
)

// Display limits for tool blocks.
const (
	outputLines = 5   // command output lines shown
	diffLines   = 120 // patch diff lines shown
)

// toolBlock is one tool call: its command, its state, and what it did.
type toolBlock struct {
	call     tools.Call
	res      *tools.Result // nil while the call runs
	awaiting bool          // an approval prompt is open for it
}

// Render implements component.
func (t *toolBlock) Render(width int, l *look) []string {
	switch {
	case t.res != nil && (t.res.Diff != "" || len(t.res.Files) > 0):
		return t.renderPatch(width, l)
	case t.res != nil && len(t.res.Plan) > 0:
		return t.renderPlan(width, l)
	}
	return t.renderCommand(width, l)
}

// title is the command line, or the tool name and its input.
func (t *toolBlock) title() string {
	if t.res != nil && t.res.Command != "" {
		return "$ " + clean(t.res.Command)
	}
	var args struct {
		Cmd string `json:"cmd"`
	}
	if !t.call.Custom && json.Unmarshal([]byte(t.call.Input), &args) == nil && args.Cmd != "" {
		return "$ " + clean(args.Cmd)
	}
	if qs := t.questions(); len(qs) > 0 {
		title := "? " + clean(qs[0].Question)
		if len(qs) > 1 {
			title += fmt.Sprintf(" (+%d more)", len(qs)-1)
		}
		return title
	}
	if files, ok := patchFiles(t.call); ok {
		return "✎ Editing " + strings.Join(files, ", ")
	}
	in := strings.Join(strings.Fields(clean(t.call.Input)), " ")
	return "• " + t.call.Name + " " + in
}

// patchFiles are the files an apply_patch call names (its sections'
// headers), from the patch text or the function form's {"input": ...}.
func patchFiles(c tools.Call) ([]string, bool) {
	if c.Name != "apply_patch" {
		return nil, false
	}
	patch := c.Input
	var args struct {
		Input string `json:"input"`
	}
	if !c.Custom && json.Unmarshal([]byte(c.Input), &args) == nil {
		patch = args.Input
	}
	var files []string
	for _, ln := range strings.Split(patch, "\n") {
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(strings.TrimSpace(ln), h); ok && f != "" {
				files = append(files, clean(f))
			}
		}
	}
	if len(files) == 0 {
		files = []string{"files"} // not a patch agent can read: its output says why
	}
	return files, true
}

// state is the short status after the title.
func (t *toolBlock) state(l *look) string {
	switch {
	case t.awaiting && t.call.Name == askTool:
		return l.warn.Render("awaiting your answer")
	case t.awaiting:
		return l.warn.Render("awaiting approval")
	case t.res == nil:
		return l.dim.Render("running…")
	}
	switch t.res.Status {
	case tools.StatusDeclined:
		return l.fail.Render("✗ declined")
	case tools.StatusAborted:
		return l.dim.Render("■ aborted")
	}
	if t.res.ExitCode != nil {
		if *t.res.ExitCode == 0 {
			return l.ok.Render("✓ exit 0")
		}
		return l.fail.Render(fmt.Sprintf("✗ exit %d", *t.res.ExitCode))
	}
	if t.res.Status == tools.StatusFailed {
		return l.fail.Render("✗ failed")
	}
	return l.ok.Render("✓")
}

func (t *toolBlock) renderCommand(width int, l *look) []string {
	st := t.state(l)
	title := truncate(t.title(), max(8, width-ansi.StringWidth(st)-2))
	out := []string{l.bold.Render(title) + "  " + st}
	if t.res == nil {
		return out
	}
	if lines := t.answerLines(width, l); lines != nil {
		return append(out, lines...)
	}
	return append(out, outputTail(commandOutput(t.res.Output), width, l)...)
}

// askTool is the tool whose calls ask the person questions.
const askTool = "request_user_input"

// questions are a request_user_input call's questions; nil for any other
// call.
func (t *toolBlock) questions() []tools.Question {
	if t.call.Name != askTool {
		return nil
	}
	var args struct {
		Questions []tools.Question `json:"questions"`
	}
	_ = json.Unmarshal([]byte(t.call.Input), &args)
	return args.Questions
}

// answerLines shows the answers of a completed request_user_input call,
// one line per question; nil for any other result.
func (t *toolBlock) answerLines(width int, l *look) []string {
	qs := t.questions()
	if len(qs) == 0 || t.res.Status != tools.StatusCompleted {
		return nil
	}
	var out struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal([]byte(t.res.Output), &out) != nil {
		return nil
	}
	lines := make([]string, 0, len(qs))
	for _, q := range qs {
		a := strings.Join(out.Answers[q.ID].Answers, " · ")
		if a == "" {
			a = "(no answer)"
		}
		lines = append(lines, l.dim.Render(truncate("  │ "+clean(q.Header)+": "+clean(strings.ReplaceAll(a, tools.NotePrefix, "note: ")), width)))
	}
	return lines
}

// commandOutput is what the command printed: exec's result text carries a
// header for the model ("Wall time: …", "Output:") that people do not need.
func commandOutput(s string) string {
	if i := strings.Index(s, "Output:\n"); i >= 0 && (i == 0 || s[i-1] == '\n') {
		s = s[i+len("Output:\n"):]
	}
	return strings.TrimRight(clean(s), "\n")
}

// outputTail shows the first lines of out, indented, with a count of the
// rest.
func outputTail(out string, width int, l *look) []string {
	if out == "" {
		return nil
	}
	lines := strings.Split(out, "\n")
	var res []string
	for i, ln := range lines {
		if i == outputLines {
			res = append(res, l.dim.Render(fmt.Sprintf("  … +%d lines", len(lines)-i)))
			break
		}
		res = append(res, l.dim.Render(truncate("  │ "+ln, width)))
	}
	return res
}

func (t *toolBlock) renderPatch(width int, l *look) []string {
	files := make([]string, 0, len(t.res.Files))
	for _, f := range t.res.Files {
		files = append(files, clean(f))
	}
	title := "✎ Edited"
	if len(files) > 0 {
		title += " " + strings.Join(files, ", ")
	}
	out := []string{l.bold.Render(truncate(title, max(8, width-12))) + "  " + t.state(l)}
	if t.res.Status != tools.StatusCompleted && t.res.Diff == "" {
		return append(out, outputTail(clean(t.res.Output), width, l)...)
	}
	return append(out, diffView(clean(t.res.Diff), width, diffLines, l)...)
}

// diffView colours a unified diff, showing at most limit lines (0: all).
func diffView(diff string, width, limit int, l *look) []string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	var out []string
	for i, ln := range lines {
		if limit > 0 && i == limit {
			out = append(out, l.dim.Render(fmt.Sprintf("  … +%d lines", len(lines)-i)))
			break
		}
		ln = truncate("  "+ln, width)
		body := strings.TrimPrefix(ln, "  ")
		switch {
		case strings.HasPrefix(body, "+++"), strings.HasPrefix(body, "---"),
			strings.HasPrefix(body, "diff "), strings.HasPrefix(body, "index "):
			ln = l.bold.Render(ln)
		case strings.HasPrefix(body, "+"):
			ln = l.add.Render(ln)
		case strings.HasPrefix(body, "-"):
			ln = l.del.Render(ln)
		case strings.HasPrefix(body, "@@"):
			ln = l.hunk.Render(ln)
		}
		out = append(out, ln)
	}
	return out
}

func (t *toolBlock) renderPlan(width int, l *look) []string {
	out := []string{l.bold.Render("☰ Plan")}
	for _, s := range t.res.Plan {
		mark := "[ ]"
		switch s.Status {
		case "completed":
			mark = "[x]"
		case "in_progress":
			mark = "[>]"
		}
		for i, ln := range wrap(clean(s.Step), width, "      ") {
			if i == 0 {
				ln = "  " + mark + ln[5:]
			}
			if s.Status == "completed" {
				ln = l.dim.Render(ln)
			}
			out = append(out, ln)
		}
	}
	return out
}
