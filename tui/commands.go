package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/internal/review"
	"github.com/agentcli/agent/transport"
)

// keyHelp lists the key bindings for /help.
func keyHelp() []string {
	return []string{
		"enter send · alt+enter or ctrl+j new line · ↑/↓ history (on the first/last line) · /keymap rebinds ([tui.keymap])",
		"esc interrupt the turn · ctrl-c interrupt, twice within 1s quit · ctrl-d quit (empty composer)",
		"esc esc (empty composer) edit an earlier message · ctrl+t the transcript in a pager",
		"pgup/pgdn or the mouse wheel scroll the transcript (hold shift to select text)",
		"messages sent during a turn are queued and sent when it ends",
	}
}

// busyOp is a slash command that must not overlap a turn (/new, /model,
// /compact, /resume). Messages sent meanwhile are queued.
type busyOp struct {
	label   string
	started time.Time
	cancel  context.CancelFunc
}

// commandMsg is a command's result.
type commandMsg struct {
	busy   bool     // it ended a busyOp
	info   string   // a line to show
	body   []string // preformatted lines to show under info
	warn   string   // a warning to show
	err    error    // the command failed
	engine Engine   // replaces the engine when non-nil
	reset  bool     // the conversation starts over
	model  string   // the model now in use, when it changed
	effort string   // the reasoning effort now in use, when it changed
	resume []Message
	diff   *diffBlock  // /diff's result
	edit   string      // text to put in the composer (a message to edit)
	send   string      // a message to send (an MCP prompt's text)
	side   *sideAnswer // a side question's answer (/side)
}

// modelCmd is /model [NAME].
func (m *Model) modelCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if arg == "" {
		return m.openModelPicker()
	}
	if c.Model == nil {
		return m.unavailable("/model")
	}
	return m.switchModel(arg, "")
}

// switchModel switches to model name (and reasoning effort, when not
// empty) from the next turn on.
func (m *Model) switchModel(name, effort string) tea.Cmd {
	c := m.opts.Commands
	if c.Model == nil {
		return m.unavailable("/model")
	}
	return m.exclusive("Switching model", func(ctx context.Context) commandMsg {
		e, err := c.Model(ctx, name, effort)
		info := "model: " + name
		if effort != "" {
			info += " · reasoning effort: " + effort
		}
		return commandMsg{engine: e, model: name, effort: effort, info: info, err: err}
	})
}

// permissionsCmd is /permissions [PRESET|POLICY] (also /approvals).
func (m *Model) permissionsCmd(arg string) tea.Cmd {
	if m.opts.Commands.Approvals == nil {
		return m.unavailable("/permissions")
	}
	if arg == "" {
		return m.openPermissionsPicker()
	}
	return m.setPermissions(arg)
}

// setPermissions applies a preset or an approval policy.
func (m *Model) setPermissions(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.Approvals == nil {
		return m.unavailable("/permissions")
	}
	return m.hook(func(ctx context.Context) commandMsg {
		s, err := c.Approvals(ctx, arg)
		return commandMsg{info: s, err: err}
	})
}

// newCmd is /new and /clear.
func (m *Model) newCmd(string) tea.Cmd {
	c := m.opts.Commands
	if c.New == nil {
		return m.unavailable("/new")
	}
	return m.exclusive("Starting over", func(ctx context.Context) commandMsg {
		e, err := c.New(ctx)
		return commandMsg{engine: e, reset: true, info: "Started a new conversation.", err: err}
	})
}

// compactCmd is /compact.
func (m *Model) compactCmd(string) tea.Cmd {
	c := m.opts.Commands
	if c.Compact == nil {
		return m.unavailable("/compact")
	}
	return m.exclusive("Compacting", func(ctx context.Context) commandMsg {
		s, err := c.Compact(ctx)
		return commandMsg{info: s, err: err}
	})
}

// undoCmd is /undo.
func (m *Model) undoCmd(string) tea.Cmd {
	c := m.opts.Commands
	if c.Undo == nil {
		return m.unavailable("/undo")
	}
	return m.exclusive("Undoing", func(ctx context.Context) commandMsg {
		s, err := c.Undo(ctx)
		return commandMsg{info: s, err: err}
	})
}

// rewindCmd is /rewind: a picker of the turns, then of what to restore.
func (m *Model) rewindCmd(string) tea.Cmd {
	c := m.opts.Commands
	if c.Rewind == nil || c.RewindTurns == nil {
		return m.unavailable("/rewind")
	}
	turns := c.RewindTurns()
	var items []pickItem
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		detail := "no files to restore"
		if t.Files {
			detail = "changed files"
		}
		items = append(items, pickItem{listRow: listRow{label: fmt.Sprintf("%d. %s", t.N, clean(oneLine(t.Prompt))), detail: detail},
			value: strconv.Itoa(t.N), search: t.Prompt})
	}
	p := &picker{title: "Rewind to before which turn?", items: items,
		choose: func(m *Model, it pickItem) tea.Cmd {
			n, _ := strconv.Atoi(it.value)
			return m.rewindWhat(n)
		}}
	p.list.empty = "no turns to rewind"
	m.openPicker(p)
	return nil
}

// rewindWhat asks what /rewind restores of turn n and the later ones.
func (m *Model) rewindWhat(n int) tea.Cmd {
	c := m.opts.Commands
	p := &picker{title: fmt.Sprintf("Rewind to before turn %d: restore", n), items: []pickItem{
		{listRow: listRow{label: "files and conversation"}, value: "both"},
		{listRow: listRow{label: "conversation only"}, value: "conversation"},
		{listRow: listRow{label: "files only"}, value: "files"},
	}, choose: func(m *Model, it pickItem) tea.Cmd {
		files, conv := it.value != "conversation", it.value != "files"
		return m.exclusive("Rewinding", func(ctx context.Context) commandMsg {
			s, err := c.Rewind(ctx, n, files, conv)
			return commandMsg{info: s, err: err}
		})
	}}
	m.openPicker(p)
	return nil
}

// oneLine is s on one line, cut to 60 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// resumeCmd is /resume [ID]: with no id, the picker of this directory's
// sessions.
func (m *Model) resumeCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.Resume == nil {
		return m.unavailable("/resume")
	}
	if arg == "" && c.Sessions != nil {
		return m.openResumePicker(false)
	}
	return m.resumeID(arg)
}

// resumeID loads session id (a unique prefix will do).
func (m *Model) resumeID(id string) tea.Cmd {
	c := m.opts.Commands
	return m.exclusive("Resuming", func(ctx context.Context) commandMsg {
		r, err := c.Resume(ctx, id)
		return commandMsg{engine: r.Engine, reset: true, resume: r.Messages, err: err}
	})
}

// mentionCmd is /mention: the composer gets an @, which opens the file
// search.
func (m *Model) mentionCmd(string) tea.Cmd {
	m.setComposer("@")
	return nil
}

// pwdCmd is /pwd.
func (m *Model) pwdCmd(string) tea.Cmd {
	dir := m.opts.Dir
	if dir == "" {
		dir = "(the directory agent was started in)"
	}
	m.info("directory: "+dir, nil)
	return nil
}

// hooksCmd is /hooks [trust KEY|all].
func (m *Model) hooksCmd(arg string) tea.Cmd {
	if m.opts.Commands.Hooks == nil {
		m.info("No hooks here.", nil)
		return nil
	}
	title, body, err := m.opts.Commands.Hooks(arg)
	if err != nil {
		m.tr.add(&notice{level: levelWarn, text: clean(err.Error())})
		m.follow = true
		return nil
	}
	m.info(title, body)
	return nil
}

// skillsCmd is /skills [NAME]: the list, or $NAME put in the message.
func (m *Model) skillsCmd(arg string) tea.Cmd {
	if m.opts.Commands.Skills == nil {
		m.info("No skills here.", nil)
		return nil
	}
	names, body := m.opts.Commands.Skills()
	if arg = strings.TrimPrefix(arg, "$"); arg != "" {
		if !containsString(names, arg) {
			m.tr.add(&notice{level: levelWarn, text: "no skill is called " + clean(arg) + " (/skills lists them)"})
			m.follow = true
			return nil
		}
		return m.insert("$" + arg + " ")
	}
	if len(names) == 0 {
		body = append([]string{"No skills: a SKILL.md under .agents/skills, the home's skills/ or ~/.agents/skills."}, body...)
	}
	m.info("Skills ($NAME in a message sends the skill to the model; /skills NAME puts it there)", body)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// unavailable says a command has no hook.
func (m *Model) unavailable(name string) tea.Cmd {
	m.tr.add(&notice{level: levelWarn, text: name + " is not available here"})
	return nil
}

// info shows a line (and preformatted lines) in the transcript.
func (m *Model) info(text string, body []string) {
	m.tr.add(&notice{level: levelInfo, text: text, body: body})
	m.follow = true
}

// hook runs f as a command, with a context that ends when the chat does.
func (m *Model) hook(f func(ctx context.Context) commandMsg) tea.Cmd {
	ctx := m.ctx
	return m.jobs.cmd(func() tea.Msg { return f(ctx) })
}

// exclusive runs f as a busyOp: only while no turn runs, cancelled by esc.
func (m *Model) exclusive(label string, f func(ctx context.Context) commandMsg) tea.Cmd {
	if m.turn != nil || m.busy != nil {
		m.tr.add(&notice{level: levelWarn, text: "wait for the current turn to end (esc interrupts it), then try again"})
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy = &busyOp{label: label, started: m.now(), cancel: cancel}
	return tea.Batch(m.startTicking(), m.jobs.cmd(func() tea.Msg {
		msg := f(ctx)
		msg.busy = true
		return msg
	}))
}

// commandDone shows a command's result and applies its effects.
func (m *Model) commandDone(msg commandMsg) tea.Cmd {
	if msg.busy && m.busy != nil {
		m.busy.cancel()
		m.busy = nil
	}
	switch {
	case msg.busy && errors.Is(msg.err, context.Canceled):
		m.tr.add(&notice{level: levelInterrupted, text: "Cancelled"})
	case msg.err != nil:
		m.tr.add(&notice{level: levelError, text: clean(msg.err.Error())})
	case msg.warn != "":
		m.tr.add(&notice{level: levelWarn, text: clean(msg.warn)})
	default:
		m.applyCommand(msg)
	}
	if msg.busy {
		return m.sendQueued()
	}
	if msg.send != "" && msg.err == nil {
		return m.sendMessage(msg.send)
	}
	return nil
}

// applyCommand applies a successful command's effects.
func (m *Model) applyCommand(msg commandMsg) {
	if msg.engine != nil {
		m.engine = msg.engine
	}
	if msg.model != "" {
		m.opts.Model, m.effort = msg.model, msg.effort
		if w := m.opts.Window; w != nil {
			m.opts.ContextWindow, m.opts.AutoCompact = w(msg.model)
		}
	}
	if msg.reset {
		m.tr.reset()
		m.printed = 0
		m.items = map[string]*block{}
		m.last, m.total, m.cost = transport.Usage{}, transport.Usage{}, nil
		m.follow = true
		m.unsaved = false
	}
	for _, r := range msg.resume {
		switch r.Role {
		case "user":
			m.tr.add(userMsg{text: clean(r.Text)})
		case "warning":
			m.tr.add(&notice{level: levelWarn, text: clean(r.Text)})
		default:
			m.tr.add(&agentMsg{done: true, text: clean(r.Text)})
		}
	}
	if msg.info != "" || len(msg.body) > 0 {
		m.info(clean(msg.info), msg.body)
	}
	if msg.diff != nil {
		m.tr.add(msg.diff)
		m.follow = true
	}
	if msg.edit != "" {
		m.setComposer(msg.edit)
	}
	if msg.side != nil {
		m.sideAnswered(msg.side)
	}
}

// showHelp lists the commands and keys.
func (m *Model) showHelp() {
	var body []string
	for _, c := range m.commands() {
		name := c.name
		if len(c.aliases) > 0 {
			name += " (" + strings.Join(c.aliases, ", ") + ")"
		}
		body = append(body, fmt.Sprintf("  %-26s %-16s %s", name, c.args, c.help))
	}
	m.tr.add(&notice{level: levelInfo, text: "Commands and keys", body: body, hint: keyHelp()})
	m.follow = true
}

// showStatus shows the hook's lines, then what the chat knows.
func (m *Model) showStatus() {
	var body []string
	if f := m.opts.Commands.Status; f != nil {
		for _, ln := range f() {
			body = append(body, "  "+clean(ln))
		}
	} else {
		body = append(body,
			"  provider: "+orNone(m.opts.Provider),
			"  transport: "+orNone(m.opts.Transport),
			"  model: "+orNone(m.opts.Model))
	}
	ctxLine := "  context: " + compact(m.last.TotalTokens) + " tokens"
	if w := m.opts.ContextWindow; w > 0 {
		ctxLine += fmt.Sprintf(" of %s (%d%%)", compact(w), m.last.TotalTokens*100/w)
	}
	body = append(body, ctxLine,
		fmt.Sprintf("  tokens this session: %s (input %s, output %s)",
			compact(m.total.TotalTokens), compact(m.total.InputTokens), compact(m.total.OutputTokens)))
	if m.cost != nil { // unknown without a price: never guessed
		body = append(body, fmt.Sprintf("  cost this session: $%.4f", *m.cost))
	}
	body = append(body, fmt.Sprintf("  retries this session: %d", m.retries))
	m.info("Status", body)
}

// diffLimit caps the lines /diff shows.
const diffLimit = 2000

// diff shows the whole git diff of the working tree: staged, unstaged
// and untracked files, as a review of the uncommitted changes sees them
// (package review), coloured and scrollable in the transcript.
func (m *Model) diff() tea.Cmd {
	dir := m.opts.Dir
	return m.hook(func(ctx context.Context) commandMsg {
		c, err := review.Gather(ctx, nil, dir, review.Target{})
		switch {
		case errors.Is(err, review.ErrNothing):
			return commandMsg{info: "No changes."}
		case err != nil:
			return commandMsg{err: err}
		}
		d := c.Diff
		if c.Size > len(d) {
			d += fmt.Sprintf("\n… the diff is cut at %d KiB of %d KiB: `git diff` shows the rest\n", len(d)>>10, c.Size>>10)
		}
		return commandMsg{diff: &diffBlock{diff: clean(d)}}
	})
}

// diffBlock is /diff's output: a coloured diff and the untracked files.
type diffBlock struct {
	diff      string
	untracked []string
}

// Render implements component.
func (d *diffBlock) Render(width int, l *look) []string {
	out := []string{l.bold.Render("• git diff")}
	if strings.TrimSpace(d.diff) != "" {
		out = append(out, diffView(d.diff, width, diffLimit, l)...)
	}
	for _, f := range d.untracked {
		out = append(out, l.add.Render(truncate("  ?? "+f, width)))
	}
	return out
}

// git runs git in dir and returns its output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git: %s", msg)
	}
	return stdout.String(), nil
}
