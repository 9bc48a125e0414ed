package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/termtext"
	"github.com/agentcli/agent/tools"
)

// execPrinter renders session events for agent exec as the reference
// client's exec does: standard output holds the final message only, printed
// when the turn completes; standard error shows the header (execHeader),
// each command with its exit code and output, each patch with its diff,
// each MCP call, each message of the turn ("codex" then the text), each
// retry and warning. A message completed by an attempt that then failed is
// left out: the retry answers. When stderr is a terminal the answer streams
// there live; live text of a failed attempt is erased (or, when the
// terminal width is unknown, marked) before the retry.
type execPrinter struct {
	env  Env
	view toolView
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

func newExecPrinter(env Env, view toolView) *execPrinter {
	return &execPrinter{env: env, view: view, live: env.StderrTTY}
}

// execHeader is what exec prints on stderr before the turn, as the
// reference client: where, with which model and provider, under which
// approval policy and sandbox, and the session id to resume.
func execHeader(e *engine, sessionID string) string {
	sb := string(e.ws.sandbox.Mode)
	if e.ws.sandbox.Mode == "workspace-write" {
		roots := append([]string{"workdir"}, e.ws.sandbox.WritableRoots...)
		sb += " [" + strings.Join(roots, ", ") + "]"
	}
	effort := e.cfg.ModelReasoningEffort
	if effort == "" {
		effort = "default"
	}
	lines := []string{
		"agent " + version,
		"--------",
		"workdir: " + e.ws.cwd,
		"model: " + e.cfg.Model,
		"provider: " + e.client.Provider().ID,
		"approval: " + e.ws.policy,
		"sandbox: " + sb,
		"reasoning effort: " + effort,
		"session id: " + sessionID,
		"--------",
	}
	return strings.Join(lines, "\n") + "\n"
}

// maxShownOutputLines bounds the output shown under each command.
const maxShownOutputLines = 20

// toolBegin shows a command or an MCP call as it starts.
func (p *execPrinter) toolBegin(ev session.ToolCallBegin) {
	if server, tool, ok := p.view.lookupMCP(ev.Call.Name); ok {
		fmt.Fprintf(p.env.Stderr, "mcp: %s/%s started\n", p.safe(server), p.safe(tool))
		return
	}
	if ev.Call.Name != "exec_command" {
		return
	}
	if argv, ok := tools.ExecArgv(p.view.shell, ev.Call.Input); ok {
		fmt.Fprintf(p.env.Stderr, "exec\n%s in %s\n", p.safe(tools.ShellJoin(argv)), p.view.cwd)
	}
}

// toolEnd shows how a command, a patch or an MCP call ended.
func (p *execPrinter) toolEnd(ev session.ToolCallEnd) {
	r := ev.Result
	w := p.env.Stderr
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
				path = filepath.Join(p.view.cwd, path)
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

func (p *execPrinter) handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TextDelta:
		if p.live {
			d := termtext.Sanitize(ev.Delta) // the model's text must not drive the terminal
			fmt.Fprint(p.env.Stderr, d)
			p.shown.WriteString(d)
		}
	case session.Retracted:
		if p.live && p.shown.Len() > 0 {
			if !p.erase() {
				fmt.Fprint(p.env.Stderr, " [partial answer discarded]\n")
			}
		}
	case session.MessageDone:
		shown := p.live && p.shown.Len() > 0
		p.endLine()
		p.pending = append(p.pending, pendingMessage{ev.Text, shown})
	case session.ResponseCompleted:
		for _, m := range p.pending {
			if !m.shown {
				fmt.Fprintln(p.env.Stderr, "codex\n"+p.safe(m.text))
			}
			p.final, p.hasFinal = m.text, true
		}
		p.pending = nil
	case session.ToolCallBegin:
		p.endLine()
		p.toolBegin(ev)
	case session.ToolCallEnd:
		p.endLine()
		p.toolEnd(ev)
	case session.Retry:
		p.pending = nil // the attempt failed: its retry answers
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe(retryNotice(ev.Retry)))
	case session.Warning:
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe("warning: "+ev.Message))
	case session.ProviderSwitch:
		p.pending = nil // the failed provider's answer, if any, is not the final one
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe(ev.Notice()))
	case session.TurnCompleted:
		p.endLine()
		if t := ev.Total.TotalTokens; t > 0 {
			fmt.Fprintf(p.env.Stderr, "tokens used: %d\n", t)
		}
		if p.hasFinal {
			text := p.final
			if p.env.StdoutTTY {
				text = termtext.Sanitize(text) // the model's text must not drive the terminal
			}
			fmt.Fprintln(p.env.Stdout, text)
		}
	}
}

// safe returns a line of text from outside (a server's error message) fit
// for stderr: sanitized when it is a terminal.
func (p *execPrinter) safe(line string) string {
	if p.env.StderrTTY {
		return termtext.Sanitize(line)
	}
	return line
}

// finish ends any unterminated live line.
func (p *execPrinter) finish() { p.endLine() }

// endLine keeps the live text on screen and moves to a fresh line.
func (p *execPrinter) endLine() {
	if p.shown.Len() == 0 {
		return
	}
	if !strings.HasSuffix(p.shown.String(), "\n") {
		fmt.Fprintln(p.env.Stderr)
	}
	p.shown.Reset()
}

// erase removes the live text from the terminal. It reports false when the
// terminal width is unknown and the text could not be located.
func (p *execPrinter) erase() bool {
	width := 0
	if p.env.Width != nil {
		width = p.env.Width()
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
	fmt.Fprint(p.env.Stderr, b.String())
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

// retryNotice is the one stderr line a retry gets, worded as the chat
// words it (session.RetryNotice), for example "Reconnecting... 2/5 in 0.4s
// (stream closed before response.completed)".
func retryNotice(r modelclient.Retry) string { return session.RetryNotice(r, r.Delay) }
