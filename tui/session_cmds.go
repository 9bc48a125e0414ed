package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/review"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// sessionCommands are the review and session commands of the registry
// (issue 28's): /review, /copy, /export, /warnings, /ps, /stop, /init,
// /rename, /logout.
func sessionCommands() []command {
	return []command{
		{name: "/review", args: "[INSTRUCTIONS]", help: "review the uncommitted changes, a branch or a commit", run: (*Model).reviewCmd},
		{name: "/copy", help: "copy the last answer to the clipboard (OSC 52: works over SSH and in tmux)", run: (*Model).copyCmd},
		{name: "/export", args: "[FILE]", help: "write the conversation as Markdown", run: (*Model).exportCmd},
		{name: "/warnings", help: "the configuration warnings (settings agent ignores)", run: (*Model).warningsCmd},
		{name: "/agents", aliases: []string{"/subagents"}, args: "[N|NAME]", help: "the subagents the model spawned; one's conversation", run: (*Model).agentsCmd},
		{name: "/ps", help: "the commands the model left running in the background", run: (*Model).psCmd},
		{name: "/stop", args: "[ID]", help: "stop the model's background commands (all, or session ID)", run: (*Model).stopCmd},
		{name: "/init", help: "have the model write an AGENTS.md for this repository", run: (*Model).initCmd},
		{name: "/rename", args: "NAME", help: "name this session (`agent resume NAME` reopens it)", run: (*Model).renameCmd},
		{name: "/logout", help: "remove the saved login (as `agent logout`)", run: (*Model).logoutCmd},
	}
}

// Reviewer is an [Engine] that runs review turns, recorded as reviews
// ([session.Session.Review]); /review sends a plain turn to an engine
// that is not one.
type Reviewer interface {
	Review(ctx context.Context, target, request string, emit func(session.Event)) error
}

// reviewCmd is /review: with instructions, a review of the uncommitted
// changes following them; without, a menu of what to review.
func (m *Model) reviewCmd(arg string) tea.Cmd {
	if arg != "" {
		return m.review(review.Target{Instructions: arg})
	}
	row := func(label, detail, value string) pickItem {
		return pickItem{listRow: listRow{label: label, detail: detail}, value: value}
	}
	m.openPicker(&picker{title: "Review", items: []pickItem{
		row("Uncommitted changes", "staged, unstaged and untracked", "uncommitted"),
		row("Against a base branch", "this branch's changes since it left the base", "base"),
		row("A commit", "the changes one commit made", "commit"),
		row("Custom instructions", "the uncommitted changes, as you say", "custom"),
	}, choose: func(m *Model, it pickItem) tea.Cmd {
		m.picker = nil
		switch it.value {
		case "base":
			return m.loadPicker(&picker{title: "Review against which branch", choose: func(m *Model, it pickItem) tea.Cmd {
				m.picker = nil
				return m.review(review.Target{Base: it.value})
			}}, m.branches)
		case "commit":
			return m.loadPicker(&picker{title: "Review which commit", choose: func(m *Model, it pickItem) tea.Cmd {
				m.picker = nil
				return m.review(review.Target{Commit: it.value})
			}}, m.commits)
		case "custom":
			m.setComposer("/review ")
			return nil
		}
		return m.review(review.Target{})
	}})
	return nil
}

// branches are the base branches /review offers: the upstream first, then
// main or master, then the others.
func (m *Model) branches(ctx context.Context) ([]pickItem, error) {
	out, err := git(ctx, m.opts.Dir, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes")
	if err != nil {
		return nil, err
	}
	cur, _ := git(ctx, m.opts.Dir, "rev-parse", "--abbrev-ref", "HEAD")
	up, _ := git(ctx, m.opts.Dir, "rev-parse", "--abbrev-ref", "@{upstream}")
	first := []string{strings.TrimSpace(up), "main", "master", "origin/main", "origin/master"}
	var items []pickItem
	seen := map[string]bool{strings.TrimSpace(cur): true, "": true}
	add := func(name, detail string) {
		if !seen[name] && strings.Contains("\n"+out+"\n", "\n"+name+"\n") {
			seen[name] = true
			items = append(items, pickItem{listRow: listRow{label: clean(name), detail: detail}, value: name})
		}
	}
	for i, b := range first {
		detail := ""
		if i == 0 {
			detail = "upstream"
		}
		add(b, detail)
	}
	for b := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(b, "/HEAD") {
			add(b, "")
		}
	}
	return items, nil
}

// commits are the recent commits /review offers, newest first.
func (m *Model) commits(ctx context.Context) ([]pickItem, error) {
	out, err := git(ctx, m.opts.Dir, "log", "-n", "50", "--format=%h%x09%s%x09%cr")
	if err != nil {
		return nil, err
	}
	var items []pickItem
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		sha, rest, _ := strings.Cut(line, "\t")
		subject, age, _ := strings.Cut(rest, "\t")
		if sha != "" {
			items = append(items, pickItem{listRow: listRow{label: clean(sha + " " + subject), detail: clean(age)}, value: sha,
				search: sha + " " + subject})
		}
	}
	return items, nil
}

// reviewReadyMsg carries what git reports for a review, to start its turn.
type reviewReadyMsg struct {
	change review.Change
	target review.Target
	err    error
}

// review asks git for t's change on a goroutine, then runs the review
// turn (reviewReady).
func (m *Model) review(t review.Target) tea.Cmd {
	dir := m.opts.Dir
	return m.hookMsg(func(ctx context.Context) tea.Msg {
		c, err := review.Gather(ctx, nil, dir, t)
		return reviewReadyMsg{change: c, target: t, err: err}
	})
}

// reviewReady starts the review turn: the transcript shows its title
// line, the model gets the whole request.
func (m *Model) reviewReady(msg reviewReadyMsg) tea.Cmd {
	if msg.err != nil {
		m.tr.add(&notice{level: levelWarn, text: clean(msg.err.Error())})
		m.follow = true
		return nil
	}
	if m.turn != nil || m.busy != nil {
		m.tr.add(&notice{level: levelWarn, text: "wait for the current turn to end (esc interrupts it), then /review again"})
		return nil
	}
	c := msg.change
	request := review.Prompt(c, msg.target)
	shown := "Code review: " + c.Summary
	if s := strings.TrimSpace(msg.target.Instructions); s != "" {
		shown += " — " + s
	}
	return m.startTurnAs(shown, request, func(ctx context.Context, eng Engine, emit func(session.Event)) error {
		if r, ok := eng.(Reviewer); ok {
			return r.Review(ctx, c.Summary, request, emit)
		}
		return eng.Turn(ctx, request, emit)
	})
}

// hookMsg runs f on a goroutine of its own; its message comes back to
// Update.
func (m *Model) hookMsg(f func(ctx context.Context) tea.Msg) tea.Cmd {
	ctx := m.ctx
	return m.jobs.cmd(func() tea.Msg { return f(ctx) })
}

// copyCmd is /copy: the last answer to the clipboard through OSC 52.
func (m *Model) copyCmd(string) tea.Cmd {
	if m.lastAnswer == "" {
		m.info("nothing to copy yet: no answer in this conversation", nil)
		return nil
	}
	seq, ok := osc52(m.lastAnswer, m.opts.InTmux)
	if !ok {
		m.tr.add(&notice{level: levelWarn, text: fmt.Sprintf("the answer is too long for the terminal's clipboard (%d bytes); /export writes it to a file", len(m.lastAnswer))})
		return nil
	}
	out := m.opts.Output
	if out == nil {
		out = os.Stdout
	}
	n := len(m.lastAnswer)
	return m.hook(func(context.Context) commandMsg {
		if _, err := io.WriteString(out, seq); err != nil {
			return commandMsg{err: fmt.Errorf("copy: %w", err)}
		}
		hint := ""
		if m.opts.InTmux {
			hint = " (in tmux it reaches the clipboard when set-clipboard is on)"
		}
		return commandMsg{info: fmt.Sprintf("copied the last answer (%d bytes) to the clipboard%s", n, hint)}
	})
}

// exportCmd is /export [FILE]: the conversation as Markdown, written whole
// (a temporary file renamed into place), FILE relative to the working
// directory; without one, agent-SESSION.md there.
func (m *Model) exportCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.History == nil {
		return m.unavailable("/export")
	}
	id := ""
	if m.opts.SessionID != nil {
		id = m.opts.SessionID()
	}
	path := arg
	if path == "" {
		short := id
		if len(short) > 8 {
			short = short[len(short)-8:]
		}
		path = "agent-" + strings.Trim(cmpOr(short, "session"), "/") + ".md"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cmpOr(m.opts.Dir, "."), path)
	}
	history, now := c.History(), m.now()
	return m.hook(func(context.Context) commandMsg {
		text := exportMarkdown(history, "agent session "+cmpOr(id, "(unsaved)"), now)
		if err := atomicfile.Write(path, []byte(text), 0o600); err != nil {
			return commandMsg{err: fmt.Errorf("export: %w", err)}
		}
		return commandMsg{info: "exported the conversation to " + path}
	})
}

// warningsCmd is /warnings: every configuration warning of this start.
func (m *Model) warningsCmd(string) tea.Cmd {
	if len(m.opts.Warnings) == 0 {
		m.info("no configuration warnings", nil)
		return nil
	}
	body := make([]string, len(m.opts.Warnings))
	for i, w := range m.opts.Warnings {
		body[i] = "  " + clean(w)
	}
	m.info(fmt.Sprintf("%d configuration warnings", len(body)), body)
	return nil
}

// warningSummary is the line the chat opens with when the configuration
// has warnings; "" when it has none.
func warningSummary(warnings []string) string {
	switch len(warnings) {
	case 0:
		return ""
	case 1:
		return "1 setting ignored · /warnings"
	}
	return fmt.Sprintf("%d settings ignored · /warnings", len(warnings))
}

// psCmd is /ps: the model's background commands, with their age.
func (m *Model) psCmd(string) tea.Cmd {
	c := m.opts.Commands
	if c.Background == nil {
		return m.unavailable("/ps")
	}
	running := c.Background()
	if len(running) == 0 {
		m.info("no background commands", nil)
		return nil
	}
	body := make([]string, len(running))
	for i, b := range running {
		body[i] = fmt.Sprintf("  %d  %s  (%s)", b.ID, clean(b.Command), m.now().Sub(b.Started).Round(time.Second))
	}
	m.info(fmt.Sprintf("%d background commands · /stop ends them, /stop ID one", len(body)), body)
	return nil
}

// stopCmd is /stop [ID]: ends the model's background commands.
func (m *Model) stopCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.Stop == nil {
		return m.unavailable("/stop")
	}
	id := -1
	if arg != "" {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			m.tr.add(&notice{level: levelWarn, text: "usage: /stop [ID] (/ps lists the ids)"})
			return nil
		}
		id = n
	}
	return m.hook(func(context.Context) commandMsg {
		switch n := c.Stop(id); {
		case n == 0 && id >= 0:
			return commandMsg{warn: fmt.Sprintf("no background command %d is running", id)}
		case n == 0:
			return commandMsg{info: "no background commands"}
		case n == 1:
			return commandMsg{info: "stopped 1 background command"}
		default:
			return commandMsg{info: fmt.Sprintf("stopped %d background commands", n)}
		}
	})
}

// initRequest asks the model for an AGENTS.md (agent's own wording).
const initRequest = `Write an AGENTS.md file at the top of this repository for coding agents that will work in it after you.

Look at the repository first: its layout, languages, build files, test setup, CI configuration and existing documentation. Then write, in plain Markdown and briefly, what an agent needs to work here well: what the project is; how to build it, run it and run its tests (the exact commands, checked against the build files); how the code is organised and where the main pieces live; the conventions the code follows (style, naming, error handling, tests) as the code shows them; and anything easy to get wrong. Keep to what the repository shows; do not invent commands or rules. Aim for 100 to 300 lines. Create the file with apply_patch and say in one line what you wrote.`

// initCmd is /init: asks the model to write AGENTS.md; when one exists it
// says so, and a second /init goes ahead.
func (m *Model) initCmd(string) tea.Cmd {
	dir := cmpOr(m.opts.Dir, ".")
	path := filepath.Join(dir, "AGENTS.md")
	if _, err := os.Stat(path); err == nil && !m.initConfirmed {
		m.initConfirmed = true
		m.tr.add(&notice{level: levelWarn, text: "AGENTS.md already exists in " + clean(dir) + "; /init again to have the model rewrite it"})
		return nil
	}
	m.initConfirmed = false
	return m.startTurnAs("/init: write AGENTS.md for this repository", initRequest, nil)
}

// renameCmd is /rename NAME; without a name it puts "/rename " in the
// composer to type one.
func (m *Model) renameCmd(arg string) tea.Cmd {
	rename := m.opts.Commands.Rename
	if rename == nil {
		return m.unavailable("/rename")
	}
	if arg == "" {
		m.setComposer("/rename ")
		m.info("type the session's name after /rename, then enter", nil)
		return nil
	}
	return m.exclusive("Renaming", func(ctx context.Context) commandMsg {
		name, err := rename(ctx, arg)
		if err != nil {
			return commandMsg{err: fmt.Errorf("rename: %w", err)}
		}
		return commandMsg{info: fmt.Sprintf("session named %q · `agent resume %s` reopens it", name, tools.ShellJoin([]string{name}))}
	})
}

// logoutCmd is /logout.
func (m *Model) logoutCmd(string) tea.Cmd {
	logout := m.opts.Commands.Logout
	if logout == nil {
		return m.unavailable("/logout")
	}
	return m.exclusive("Logging out", func(ctx context.Context) commandMsg {
		line, err := logout(ctx)
		if err != nil {
			return commandMsg{err: fmt.Errorf("logout: %w", err)}
		}
		return commandMsg{info: line}
	})
}
