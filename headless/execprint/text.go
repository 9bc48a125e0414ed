package execprint

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentcli/agent/internal/readonly"
	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// Text renders session events for agent exec as the reference
// client's exec does: standard output holds the final message only, printed
// when the turn completes; standard error shows the header ([Header]),
// each command with its exit code and output, each patch with its diff,
// each MCP call, each message of the turn ("codex" then the text), each
// retry and warning. A message completed by an attempt that then failed is
// left out: the retry answers. When stderr is a terminal the answer streams
// there live; live text of a failed attempt is erased (or, when the
// terminal width is unknown, marked) before the retry.
type Text struct {
	opts TextOptions
	live bool
	// shown is the live text currently on the screen, since the last erase.
	shown strings.Builder
	// pending are the completed messages of the attempt in progress,
	// accepted once its response completes.
	pending []pendingMessage
	// final is the last accepted message: what stdout gets.
	final    string
	hasFinal bool
}

// pendingMessage is a completed message of the attempt in progress; shown
// says it already streamed live on stderr.
type pendingMessage struct {
	text  string
	shown bool
}

// TextOptions are where a [Text] printer writes and what it knows.
type TextOptions struct {
	// Stdout gets the final message; Stderr everything else.
	Stdout, Stderr io.Writer
	// StdoutTTY and StderrTTY say which of them are terminals: the answer
	// streams live on a terminal stderr, and text from outside is
	// sanitized for a terminal.
	StdoutTTY, StderrTTY bool
	// Width returns the terminal width of stderr (0 if unknown), to erase
	// the live text of a failed attempt; nil means unknown.
	Width func() int
	// Tools describes the workspace's tools.
	Tools Tools
	// Answer, when set, turns the final message into what stdout gets
	// (agent review shows its findings as a list).
	Answer func(string) string
	// HoldAnswer keeps the final message off stdout when a turn completes:
	// [Text.WriteAnswer] writes the last one, once, when the run ends (a
	// goal pursued over turns answers once).
	HoldAnswer bool
}

// NewText returns a printer writing where o says. The caller calls
// [Text.Finish] after each turn. A Text printer is not safe for concurrent
// use.
func NewText(o TextOptions) *Text {
	return &Text{opts: o, live: o.StderrTTY}
}

// Header is what exec prints on stderr before the turn, as the reference
// client: where, with which model and provider, under which approval
// policy and sandbox, and the session id to resume.
type Header struct {
	Version  string // agent's version
	Workdir  string
	Model    string
	Provider string // the provider's id
	Approval string // the approval policy
	Sandbox  string // the sandbox mode
	// WritableRoots are the workspace-write sandbox's roots besides the
	// workdir.
	WritableRoots []string
	// ReasoningEffort is the configured effort; "" is the default.
	ReasoningEffort string
	SessionID       string
}

// String returns the header's lines, each ending in a newline.
func (h Header) String() string {
	sb := h.Sandbox
	if h.Sandbox == "workspace-write" {
		roots := append([]string{"workdir"}, h.WritableRoots...)
		sb += " [" + strings.Join(roots, ", ") + "]"
	}
	effort := h.ReasoningEffort
	if effort == "" {
		effort = "default"
	}
	lines := []string{
		"agent " + h.Version,
		"--------",
		"workdir: " + h.Workdir,
		"model: " + h.Model,
		"provider: " + h.Provider,
		"approval: " + h.Approval,
		"sandbox: " + sb,
		"reasoning effort: " + effort,
		"session id: " + h.SessionID,
		"--------",
	}
	return strings.Join(lines, "\n") + "\n"
}

// maxShownOutputLines bounds the output shown under each command.
const maxShownOutputLines = 20

// toolBegin shows a command or an MCP call as it starts.
func (p *Text) toolBegin(ev session.ToolCallBegin) {
	if server, tool, ok := p.opts.Tools.lookupMCP(ev.Call.Name); ok {
		fmt.Fprintf(p.opts.Stderr, "mcp: %s/%s started\n", p.safe(server), p.safe(tool))
		return
	}
	if ev.Call.Name != "exec_command" {
		return
	}
	if argv, ok := tools.ExecArgv(p.opts.Tools.Shell, ev.Call.Input); ok {
		fmt.Fprintf(p.opts.Stderr, "exec\n%s in %s\n", p.safe(tools.ShellJoin(argv)), p.opts.Tools.Cwd)
	}
}

// toolEnd shows how a command, a patch or an MCP call ended.
func (p *Text) toolEnd(ev session.ToolCallEnd) {
	r := ev.Result
	w := p.opts.Stderr
	if r.MCP != nil {
		fmt.Fprintf(w, "mcp: %s/%s (%s)\n", p.safe(r.MCP.Server), p.safe(r.MCP.Tool), r.Status)
		return
	}
	switch ev.Call.Name {
	case "exec_command", "write_stdin":
		if len(r.Argv) == 0 {
			fmt.Fprintf(w, "exec failed: %s\n", p.safe(firstLine(r.Output)))
			return
		}
		switch {
		case r.ExitCode == nil && r.Status == "completed":
			fmt.Fprintln(w, " still running:")
		case r.ExitCode == nil:
			fmt.Fprintf(w, " %s: %s\n", r.Status, p.safe(firstLine(r.Output)))
			return
		case *r.ExitCode == 0:
			fmt.Fprintln(w, " succeeded:")
		default:
			fmt.Fprintf(w, " exited %d:\n", *r.ExitCode)
		}
		out := strings.TrimRight(r.CommandOutput, "\n")
		if lines := strings.Split(out, "\n"); len(lines) > maxShownOutputLines {
			out = strings.Join(lines[:maxShownOutputLines], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-maxShownOutputLines)
		}
		if out != "" {
			fmt.Fprintln(w, p.safe(out))
		}
		fmt.Fprintln(w)
	case "apply_patch":
		fmt.Fprintln(w, "apply patch")
		if len(r.Files) == 0 {
			fmt.Fprintf(w, "patch: %s\n%s\n", r.Status, p.safe(strings.TrimSpace(strings.TrimPrefix(r.Output, "apply_patch: "))))
			return
		}
		// Files and their diffs sorted by path, as the reference shows them.
		fmt.Fprintf(w, "patch: %s\n", r.Status)
		var paths []string
		for _, f := range r.Files {
			path := strings.TrimSpace(f[1:])
			if !filepath.IsAbs(path) {
				path = filepath.Join(p.opts.Tools.Cwd, path)
			}
			paths = append(paths, path)
		}
		slices.Sort(paths)
		for _, path := range paths {
			fmt.Fprintln(w, p.safe(path))
		}
		fmt.Fprint(w, p.safe(strings.Join(sortedDiffs(r.Diff), "")))
		fmt.Fprintln(w)
	}
}

// sortedDiffs splits a unified diff of several files into one section per
// file ("--- " and "+++ " lines, then hunks), sorted by the new path.
func sortedDiffs(diff string) []string {
	lines := strings.SplitAfter(diff, "\n")
	var sections []string
	var cur strings.Builder
	for i, l := range lines {
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") && cur.Len() > 0 {
			sections = append(sections, cur.String())
			cur.Reset()
		}
		cur.WriteString(l)
	}
	if cur.Len() > 0 {
		sections = append(sections, cur.String())
	}
	target := func(sec string) string {
		_, rest, _ := strings.Cut(sec, "\n+++ ")
		t, _, _ := strings.Cut(rest, "\n")
		return strings.TrimPrefix(t, "b/")
	}
	slices.SortStableFunc(sections, func(a, b string) int { return strings.Compare(target(a), target(b)) })
	return sections
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Handle prints what ev shows, if anything.
func (p *Text) Handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TextDelta:
		if p.live {
			d := termtext.Sanitize(ev.Delta) // the model's text must not drive the terminal
			fmt.Fprint(p.opts.Stderr, d)
			p.shown.WriteString(d)
		}
	case session.Retracted:
		if p.live && p.shown.Len() > 0 {
			if !p.erase() {
				fmt.Fprint(p.opts.Stderr, " [partial answer discarded]\n")
			}
		}
	case session.MessageDone:
		shown := p.live && p.shown.Len() > 0
		p.endLine()
		p.pending = append(p.pending, pendingMessage{ev.Text, shown})
	case session.ResponseCompleted:
		for _, m := range p.pending {
			if !m.shown {
				writeLine(p.opts.Stderr, "codex\n", p.safe(m.text))
			}
			p.final, p.hasFinal = m.text, true
		}
		p.pending = nil
	case session.WebSearchDone:
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, p.safe("web search: "+ev.Query))
	case session.ToolCallBegin:
		p.endLine()
		p.toolBegin(ev)
	case session.ToolCallEnd:
		p.endLine()
		p.toolEnd(ev)
	case session.Retry:
		p.pending = nil // the attempt failed: its retry answers
		p.endLine()
		// Worded as the chat words it, for example "Reconnecting... 2/5 in
		// 0.4s (stream closed before response.completed)".
		fmt.Fprintln(p.opts.Stderr, p.safe(session.RetryNotice(ev.Retry, ev.Retry.Delay)))
	case session.Warning:
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, p.safe("warning: "+ev.Message))
	case session.ReviewStarted:
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, "review: "+ev.Target)
	case session.HookRun:
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, p.safe(ev.Notice()))
	case session.HookStopped:
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, p.safe("warning: "+ev.Notice()))
	case session.ProviderSwitch:
		p.pending = nil // the failed provider's answer, if any, is not the final one
		p.endLine()
		fmt.Fprintln(p.opts.Stderr, p.safe(ev.Notice()))
	case session.TurnCompleted:
		p.endLine()
		if t := ev.Total.TotalTokens; t > 0 && ev.TotalCost != nil {
			fmt.Fprintf(p.opts.Stderr, "tokens used: %d ($%.4f)\n", t, *ev.TotalCost)
		} else if t > 0 {
			fmt.Fprintf(p.opts.Stderr, "tokens used: %d\n", t)
		}
		if !p.opts.HoldAnswer {
			p.WriteAnswer()
		}
	}
}

// WriteAnswer writes the last accepted message on stdout, if there is one.
func (p *Text) WriteAnswer() {
	if !p.hasFinal {
		return
	}
	text := p.final
	if p.opts.Answer != nil {
		text = p.opts.Answer(text)
	}
	if p.opts.StdoutTTY {
		text = termtext.Sanitize(text) // the model's text must not drive the terminal
	}
	writeLine(p.opts.Stdout, text)
}

// writeLine writes parts and a newline: a short line in one write, a long
// one (a 10 MiB answer) part by part from where the parts lie, not copied
// into one buffer (io.Writer's contract: Write only reads them).
func writeLine(w io.Writer, parts ...string) {
	n := 1
	for _, s := range parts {
		n += len(s)
	}
	if n > longLine {
		for _, s := range parts {
			if _, err := w.Write(readonly.Bytes(s)); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte{'\n'})
		return
	}
	b := make([]byte, 0, n)
	for _, s := range parts {
		b = append(b, s...)
	}
	_, _ = w.Write(append(b, '\n'))
}

// longLine is the length above which a line is written in parts.
const longLine = 64 << 10

// safe returns a line of text from outside (a server's error message) fit
// for stderr: sanitized when it is a terminal.
func (p *Text) safe(line string) string {
	if p.opts.StderrTTY {
		return termtext.Sanitize(line)
	}
	return line
}

// Finish ends any unterminated live line; call it after each turn.
func (p *Text) Finish() { p.endLine() }

// endLine keeps the live text on screen and moves to a fresh line.
func (p *Text) endLine() {
	if p.shown.Len() == 0 {
		return
	}
	if !strings.HasSuffix(p.shown.String(), "\n") {
		fmt.Fprintln(p.opts.Stderr)
	}
	p.shown.Reset()
}

// erase removes the live text from the terminal. It reports false when the
// terminal width is unknown and the text could not be located.
func (p *Text) erase() bool {
	width := 0
	if p.opts.Width != nil {
		width = p.opts.Width()
	}
	if width <= 0 {
		return false
	}
	rows := screenRows(p.shown.String(), width)
	var b strings.Builder
	b.WriteString("\r")
	if rows > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", rows-1)
	}
	b.WriteString("\x1b[J")
	fmt.Fprint(p.opts.Stderr, b.String())
	p.shown.Reset()
	return true
}

// screenRows counts the terminal rows text occupies at width columns,
// counting the row the cursor is on.
func screenRows(text string, width int) int {
	rows := 0
	for _, line := range strings.Split(text, "\n") {
		n := ansi.StringWidth(line) // colours take no room
		rows += max(1, (n+width-1)/width)
	}
	return rows
}
