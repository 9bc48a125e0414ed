package tui

import (
	"context"
	"github.com/agentcli/agent/internal/subagent"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"

	"github.com/agentcli/agent/transport"
)

// Default size until the terminal reports its own.
const (
	defaultWidth  = 80
	defaultHeight = 24
	maxComposer   = 8 // composer lines shown before it scrolls
	wheelStep     = 3 // lines a mouse wheel step scrolls

	// A transcript of at least bigTranscript lines is laid out again only
	// once the width has not changed for relayoutDelay: re-rendering every
	// block on each step of a drag would make resizing sluggish.
	bigTranscript = 1000
	relayoutDelay = 150 * time.Millisecond
)

// Model is the chat's only tea.Model. It is bound to the context given to
// [Run]: every turn and hook derives its context from it. It is used from
// the program's goroutine only.
type Model struct {
	ctx  context.Context
	opts Options
	// userStatus is the /statusline command's line; nil: agent's own.
	userStatus *userStatus
	// paused says the last turn ran out of its auto-continue schedule:
	// Ctrl+R continues it now.
	paused bool
	// resumeAt, when set, is the time the server asked the paused turn to
	// wait for: the status line counts down to it and the turn continues
	// by itself then (Ctrl+R: now; Esc: stop waiting).
	resumeAt time.Time
	// goalLimited says the session's goal is paused by a usage limit: when
	// the reset comes (resumeAt) the goal resumes instead of the bare turn.
	goalLimited bool
	jobs        *jobs
	engine      Engine
	now         func() time.Time
	// lastAnswer is the model's last finished message (/copy).
	lastAnswer string
	// proposed is the plan the model proposed in plan mode and the user
	// has not yet carried out or left ([Model.offerPlan]).
	proposed string
	// initConfirmed: /init was told AGENTS.md exists; the next goes ahead.
	initConfirmed bool
	look          *look
	// side is the side conversation shown (/side); nil: the conversation.
	side *sideConv
	// vim is the composer's Vim mode (/vim); nil: off.
	vim *vimState
	// keys are the chat's key bindings ([tui.keymap]).
	keys *keymap

	width, height int
	layoutWidth   int // the width the transcript is laid out for
	resizeSeq     int // the last width change, for relayoutMsg

	tr    *transcript
	items map[string]*block // streaming items and tool calls, by id

	composer textarea.Model
	// composerView caches composer.View(), which is costly; "" means stale.
	// Every change to the composer goes through fitComposer, which clears it.
	composerView string
	statusIn     string // statusOut is statusIn styled, cached
	statusOut    string
	hist         history

	queue     []string
	turn      *turn
	busy      *busyOp
	turnSeq   int
	approvals []approvalPrompt
	asks      []*askState // request_user_input questions, the first shown
	noting    bool        // typing a note for a denial
	// approvalTop is the first diff line the patch approval shows.
	approvalTop int
	note        []rune // the note

	follow bool // the transcript shows its end
	// unsaved: the session is no longer being saved (a Warning with
	// NotSaved); the status line says so until a new session starts.
	unsaved bool
	top     int // first transcript line shown, when not following

	quitArmed time.Time // first Ctrl-C, for the second one within 1 s
	ticking   bool
	last      transport.Usage // usage of the last response
	total     transport.Usage // usage of the session
	cost      *float64        // cost of the session in USD; nil: unknown
	retries   int             // retries seen this session

	composerRows int // screen rows of the composer's text at the last fit

	att     attachments // what the composer's placeholders stand for
	pop     popup       // the / and @ popup under the composer
	picker  *picker     // a picker shown in place of the composer
	pickSeq int         // the last picker opened
	prompts []customPrompt
	effort  string // the reasoning effort chosen with /model

	// printed is how many blocks went into the terminal's scrollback
	// (inline mode); printing says a print is on its way (printedMsg).
	printed  int
	printing bool

	escArmed time.Time // the first Esc on an empty composer
	pager    bool      // the transcript pager (Ctrl+T) is open
	pagerTop int       // its first line
}

// newModel returns the model for opts; Run owns j.
func newModel(ctx context.Context, opts Options, j *jobs) *Model {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	m := &Model{
		ctx:         ctx,
		opts:        opts,
		jobs:        j,
		engine:      opts.Engine,
		now:         now,
		look:        newLook(opts.Output, opts.NoColor, opts.LightBackground),
		width:       defaultWidth,
		height:      defaultHeight,
		layoutWidth: defaultWidth,
		tr:          newTranscript(),
		items:       map[string]*block{},
		follow:      true,
		keys:        newKeymap(opts.Keymap),
	}
	if opts.VimMode {
		m.vim = &vimState{normal: true}
	}
	m.composer = newComposer(m.look)
	m.composer.SetWidth(m.width)
	if n := opts.Notices; n != nil {
		// Drawn in the middle of a render: the notice comes as a message.
		m.look.hlFailed = func(err error) { n.Post(lexerMissing(err), true) }
		if w := opts.Commands.WatchAgents; w != nil {
			// A line per change of a subagent (spawned, working, done).
			w(func(i subagent.Info) { n.Post(agentLine(i), i.Status == subagent.Errored) })
		}
	}
	th, warn := startTheme(opts)
	m.look.setTheme(th)
	if warn != "" {
		m.tr.add(&notice{level: levelWarn, text: warn})
	}
	m.applyCommand(commandMsg{resume: opts.Messages})
	if line := warningSummary(opts.Warnings); line != "" {
		m.tr.add(&notice{level: levelWarn, text: line})
	}
	return m
}

// newComposer returns the multi-line input: Enter is handled by the model
// (send), and so are Alt+Enter and Ctrl+J (a newline; keymap.go); the cursor does not blink
// (a blinking cursor redraws the screen twice a second for nothing).
func newComposer(l *look) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.SetPromptFunc(2, func(line int) string {
		if line == 0 {
			return "› "
		}
		return "  "
	})
	ta.KeyMap.InsertNewline = key.NewBinding() // the chat inserts newlines (keymap.go)
	st := textarea.Style{
		Base: l.r.NewStyle(), CursorLine: l.r.NewStyle(), CursorLineNumber: l.r.NewStyle(),
		EndOfBuffer: l.r.NewStyle(), LineNumber: l.r.NewStyle(), Placeholder: l.dim,
		Prompt: l.user, Text: l.r.NewStyle(),
	}
	ta.FocusedStyle, ta.BlurredStyle = st, st
	ta.Cursor.Style = l.r.NewStyle()
	ta.Cursor.TextStyle = l.r.NewStyle()
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.SetHeight(1)
	ta.Focus()
	return ta
}

// Init loads the composer history and starts listening for approvals.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadHistory(), m.listenApprovals(), m.listenNotices(), m.loadPrompts()}
	if m.opts.OpenResume {
		cmds = append(cmds, m.resumeCmd(""))
	}
	if m.opts.Prompt != "" {
		cmds = append(cmds, m.startTurn(m.opts.Prompt))
	}
	return tea.Batch(cmds...)
}

// Update dispatches msg to its handler family: keys (update_keys.go),
// engine events (update_stream.go), approvals (update_approval.go), slash
// commands (commands.go).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case userStatusMsg:
		m.updateUserStatus(msg)
	case clipboardImageMsg:
		cmd = m.updateClipboardImage(msg)
	}
	cmd = tea.Batch(cmd, m.dispatch(msg))
	if sc := m.refreshUserStatus(); sc != nil {
		cmd = tea.Batch(cmd, sc)
	}
	if p := m.placeholder(); p != m.composer.Placeholder {
		m.composer.Placeholder = p
		m.fitComposer()
	}
	if pc := m.refreshPopup(); pc != nil {
		cmd = tea.Batch(cmd, pc)
	}
	if pc := m.printSettled(); pc != nil {
		cmd = tea.Batch(cmd, pc)
	}
	return m, cmd
}

func (m *Model) dispatch(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.resize(msg.Width, msg.Height)
	case printedMsg:
		m.printing = false
		return nil
	case relayoutMsg:
		if msg.seq == m.resizeSeq {
			m.layoutWidth = m.width
		}
		return nil
	case tea.KeyMsg:
		return m.updateKey(msg)
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(-wheelStep)
		case tea.MouseButtonWheelDown:
			m.scroll(wheelStep)
		}
		return nil
	case streamMsg:
		return m.updateStream(msg)
	case turnDoneMsg:
		return m.turnDone(msg)
	case approvalMsg:
		return m.updateApproval(msg)
	case askMsg:
		return m.updateAsk(msg)
	case noticesMsg:
		return m.showNotices(msg)
	case tickMsg:
		return m.updateTick()
	case historyMsg:
		return m.historyLoaded(msg)
	case historySavedMsg:
		return m.historySaved(msg)
	case commandMsg:
		return m.commandDone(msg)
	case reviewReadyMsg:
		return m.reviewReady(msg)
	case pickerItemsMsg:
		return m.pickerItems(msg)
	case filesMsg:
		return m.filesIndexed(msg)
	case mentionMsg:
		m.mentioned(msg)
		return nil
	case promptsMsg:
		return m.promptsLoaded(msg)
	}
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg) // paste results and the like
	m.fitComposer()
	return cmd
}

// placeholder is the composer's hint for the current state.
func (m *Model) placeholder() string {
	if m.side != nil {
		return "Ask aside · esc returns to the conversation"
	}
	if m.turn != nil || m.busy != nil {
		return "Type a message to queue it for after this turn"
	}
	if !m.escArmed.IsZero() && m.now().Sub(m.escArmed) <= escWindow && m.opts.Commands.Fork != nil && len(m.userMessages()) > 0 {
		return "Press esc again to edit an earlier message"
	}
	return "Ask anything · /help for commands"
}

// relayoutMsg lays the transcript out for the current width, if no width
// change (seq) came after the one that sent it.
type relayoutMsg struct{ seq int }

// resize adopts a new terminal size. A long transcript keeps its layout
// (clipped to the new width) until the width settles.
func (m *Model) resize(w, h int) tea.Cmd {
	m.width, m.height = max(w, 10), max(h, 3)
	m.composer.SetWidth(m.width)
	m.fitComposer()
	m.resizeSeq++
	if m.layoutWidth == 0 || m.layoutWidth == m.width || m.tr.lineCount() < bigTranscript {
		m.layoutWidth = m.width
		return nil
	}
	return m.jobs.after(relayoutDelay, relayoutMsg{seq: m.resizeSeq})
}

// fitComposer grows the composer with its content, up to maxComposer lines
// (or a third of the screen), and scrolls it so that the cursor's line is
// shown; while everything fits, every line is shown. It is called after
// every change to the composer and drops the cached view.
func (m *Model) fitComposer() {
	m.composerView = ""
	w := max(1, m.width-2)
	rows := 0
	for _, ln := range strings.Split(m.composer.Value(), "\n") {
		rows += wrappedRows([]rune(ln), w)
	}
	h := min(rows, maxComposer, max(1, m.height/3))
	m.composer.SetHeight(h)
	// The composer's viewport only scrolls as far as its cursor needs, at
	// the height it had then: after growing, it would still hide the first
	// lines. Scroll it to the top (wheel steps of 3 lines, each followed by
	// its own scroll to the cursor), then let it bring the cursor in view.
	// Its viewport scrolls over the text of its last View: draw it first.
	m.composer.View()
	if rows <= h {
		for i := 0; i < m.composerRows/3+1; i++ {
			m.composer, _ = m.composer.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
		}
	}
	m.composer, _ = m.composer.Update(composerRefresh{})
	m.composerRows = rows
}

// composerRefresh makes the composer scroll its cursor into view.
type composerRefresh struct{}

// wrappedRows is the number of screen rows the composer takes for one line
// of width w: its word wrap, as bubbles' textarea does it (a line that
// fills the width gets a row of its own for the cursor).
func wrappedRows(line []rune, w int) int {
	rows, cur, word, spaces := 1, 0, 0, 0
	for _, r := range line {
		if unicode.IsSpace(r) {
			spaces++
		} else {
			word += runewidth.RuneWidth(r)
		}
		if spaces > 0 {
			if cur+word+spaces > w {
				rows++
				cur = 0
			}
			cur += word + spaces
			word, spaces = 0, 0
		} else if word+runewidth.RuneWidth(r) > w {
			if cur > 0 {
				rows++
			}
			cur, word = word, 0
		}
	}
	if cur+word+spaces >= w {
		rows++
	}
	return rows
}

// View draws the transcript window above the bottom pane (queued messages,
// status line, composer or approval prompt). Only the visible transcript
// lines are assembled.
func (m *Model) View() string {
	if m.pager {
		return m.pagerView()
	}
	bottom := m.bottomPane()
	h := m.height - len(bottom)
	if h < 0 {
		bottom, h = bottom[len(bottom)-m.height:], 0
	}
	m.tr.layout(m.layoutWidth, m.look)
	if m.opts.Inline {
		return m.inlineView(h, bottom)
	}
	top := m.windowTop(h)
	lines := m.tr.window(top, h)
	if m.layoutWidth > m.width { // a resize is settling
		for i, ln := range lines {
			lines[i] = truncate(ln, m.width)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, bottom...), "\n")
}

// windowTop is the first transcript line shown in a window of h lines.
func (m *Model) windowTop(h int) int {
	last := max(0, m.tr.lineCount()-h)
	if m.follow {
		return last
	}
	return min(max(0, m.top), last)
}

// bottomPane is everything under the transcript, as lines.
func (m *Model) bottomPane() []string {
	var out []string
	out = append(out, m.queueLines()...)
	if len(m.approvals) > 0 {
		out = append(out, m.statusLine())
		return append(out, m.approvalView()...)
	}
	if len(m.asks) > 0 {
		out = append(out, m.statusLine())
		return append(out, m.askView()...)
	}
	out = append(out, m.statusLine())
	if m.picker != nil {
		return append(out, m.picker.Render(m.width, m.look)...)
	}
	if m.composerView == "" {
		m.composerView = m.composer.View()
	}
	out = append(out, strings.Split(m.composerView, "\n")...)
	return append(out, m.popupView()...)
}

// queueLines shows the messages waiting for the running turn to end.
func (m *Model) queueLines() []string {
	const shown = 3
	var out []string
	for i, q := range m.queue {
		if i == shown {
			out = append(out, m.look.dim.Render(truncateN(len(m.queue)-shown)))
			break
		}
		first, _, _ := strings.Cut(q, "\n")
		out = append(out, m.look.dim.Render(truncate("↳ queued: "+first, m.width)))
	}
	return out
}

func truncateN(n int) string {
	if n == 1 {
		return "  +1 more queued"
	}
	return "  +" + strconv.Itoa(n) + " more queued"
}
