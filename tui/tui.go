package tui

import (
	"context"
	"errors"
	"github.com/agentcli/agent/internal/subagent"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	// Initialised before bubbletea, whose init would otherwise query the
	// terminal in every agent process (package quietterm).
	_ "github.com/agentcli/agent/internal/quietterm"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Engine runs turns. *session.Session satisfies it.
type Engine interface {
	// Turn runs one user turn synchronously, calling emit (on the calling
	// goroutine) for every event, and returns when the turn has ended. The
	// chat calls it from its own goroutine, one turn at a time, and cancels
	// ctx when the user interrupts.
	Turn(ctx context.Context, input string, emit func(session.Event)) error
	// RetryNow ends the wait of the running turn's pending retry (Ctrl+R):
	// the next attempt starts at once ([session.Session.RetryNow]). The
	// chat calls it from its own goroutine while Turn runs.
	RetryNow()
}

// A *session.Session is an Engine.
var _ Engine = (*session.Session)(nil)

// Options configure [Run]. Only Engine is required.
type Options struct {
	// Engine runs the turns (required).
	Engine Engine
	// Prompt, when not empty, is sent as the first message as soon as the
	// chat opens (`agent "PROMPT"`).
	Prompt string
	// Messages are shown in the transcript before anything else (the
	// history of a resumed conversation), oldest first.
	Messages []Message
	// Approver routes the engine's approval requests to the chat's prompt;
	// nil means no request ever reaches the chat. Plug the same Approver's
	// Approve into session.Options.Approve.
	Approver *Approver
	// Model, Provider and Transport are shown in the status line and by
	// /status.
	Model, Provider, Transport string
	// ContextWindow is the model's context window in tokens; 0 hides the
	// "used / window" figure.
	ContextWindow int64
	// AutoCompact is where automatic compaction starts, in tokens; the
	// status line shows how close the context is to it. 0: none.
	AutoCompact int64
	// Window, when set, gives ContextWindow and AutoCompact of another
	// model, for the model /model switches to; nil keeps them.
	Window func(model string) (window, autoCompact int64)
	// HistoryPath is the composer history file (JSON lines, appended with
	// O_APPEND, created 0600); empty keeps history in memory only.
	HistoryPath string
	// HistoryNoSave reads the history file but writes nothing to it
	// ([history] persistence = "none").
	HistoryNoSave bool
	// HistoryMaxBytes caps the history file: a write that takes it past
	// the cap drops the oldest entries, down to 80% of it, as Codex does;
	// 0 means no cap.
	HistoryMaxBytes int64
	// SessionID returns the id of the current session, written with each
	// history entry as Codex's session_id; nil writes "".
	SessionID func() string
	// Notices carries notices from other goroutines into the transcript,
	// and the one that agent-highlight could not start (code blocks are
	// then plain); nil means none.
	Notices *Notifier
	// Commands are the slash-command hooks; a nil hook makes its command
	// answer that it is not available.
	Commands Commands
	// NoColor turns every colour off (set it when NO_COLOR is set).
	NoColor bool
	// LightBackground picks agent's theme for light backgrounds; the
	// default is dark.
	LightBackground bool
	// Theme is the theme to draw in ([tui] theme; /theme lists them); ""
	// is agent's own.
	Theme string
	// Dir is where /diff runs git and @ searches files; empty means the
	// current directory.
	Dir string
	// PromptDirs hold the custom prompts (NAME.md, /prompts:NAME), in
	// order: a later directory's NAME wins.
	PromptDirs []string
	// OpenResume opens the /resume picker at start (`agent resume`
	// without an id).
	OpenResume bool
	// Input and Output default to the terminal (os.Stdin, os.Stdout).
	Input  io.Reader
	Output io.Writer
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
	// Warnings are the configuration's warnings (settings agent ignores):
	// the chat opens with a one-line count, /warnings lists them.
	Warnings []string
	// InTmux says the chat runs inside tmux ($TMUX): /copy also sends
	// its OSC 52 as tmux passthrough.
	InTmux bool
	// AttachImages adds images (data: URLs) to the user message of the
	// turn about to start; it is called on the turn's goroutine, before
	// Engine.Turn. nil: pasted images cannot be sent.
	AttachImages func(urls []string)
	// ClipboardImage reads the image in the system clipboard (Ctrl+V,
	// [ClipboardImage]); nil: Ctrl+V says it is not available.
	ClipboardImage func(ctx context.Context) ([]byte, error)
	// VimMode starts the composer in Vim's normal mode ([tui]
	// vim_mode_default, as Codex); /vim toggles it.
	VimMode bool
	// Keymap is Codex's [tui.keymap], by context and action: the keys of
	// the chat's actions it rebinds; nil keeps the defaults. KeymapPath
	// is the file it is read from and KeymapWarnings what is wrong in it
	// (each naming the file and line), for /keymap.
	Keymap         map[string]map[string][]string
	KeymapPath     string
	KeymapWarnings []string
	// Inline runs the chat without the alternate screen (--no-alt-screen,
	// [tui] alternate_screen = "never"): finished blocks are printed into
	// the terminal's scrollback, the screen keeps only what still changes
	// and the composer, and the mouse is left to the terminal.
	Inline bool
}

// Commands are the hooks slash commands need from the outside world. Hooks
// run on a goroutine of their own, never in Update. New, Model, Compact and
// Resume are called only while no turn runs; Status and Approvals may be
// called during a turn, so they must be safe for use concurrently with
// [Engine.Turn]. Each ctx is cancelled when the user presses Esc or quits.
// RewindTurn is a turn /rewind offers: its number, what the user asked,
// and whether it changed files that can be restored.
type RewindTurn struct {
	N      int
	Prompt string
	Files  bool
}

// Commands are the operations slash commands run.
type Commands struct {
	// New starts a fresh conversation (/new) and returns its engine.
	New func(ctx context.Context) (Engine, error)
	// Model switches to the model called name (/model NAME, or the
	// picker), with reasoning effort effort when it is not empty; it may
	// return a new engine, or nil to keep the current one.
	Model func(ctx context.Context, name, effort string) (Engine, error)
	// Models lists the models /model offers (the provider's list when it
	// answers, else the known ones); nil offers the current model only.
	Models func(ctx context.Context) ([]ModelChoice, error)
	// Fork starts a new session holding the first keep turns of this one
	// (every turn for -1), recorded as forked from it, and returns it
	// (/fork, and Esc Esc to edit an earlier message).
	Fork func(ctx context.Context, keep int) (Resumed, error)
	// Sessions lists the recorded sessions /resume offers, newest first:
	// this directory's, or every one when all is set.
	Sessions func(ctx context.Context, all bool) ([]SessionInfo, error)
	// Status returns lines for /status: config file, provider, transport in
	// use, and anything else worth knowing. The chat adds tokens and retries.
	Status func() []string
	// Hooks lists the lifecycle hooks with their source and trust (/hooks),
	// after trusting those arg names ("trust KEY", "trust all"); nil: none.
	Hooks func(arg string) (title string, body []string, err error)
	// Skills lists the skills (/skills): their names and the lines shown.
	Skills func() (names, body []string)
	// Compact compacts the conversation (/compact) and returns a one-line
	// summary of what it did.
	Compact func(ctx context.Context) (string, error)
	// Undo puts back the latest turn's files, or the history from before
	// a compaction just made (/undo), and says what it did.
	Undo func(ctx context.Context) (string, error)
	// RewindTurns are the turns /rewind offers; Rewind goes back to
	// before turn n: its files and later turns', the conversation, or
	// both.
	RewindTurns func() []RewindTurn
	Rewind      func(ctx context.Context, n int, files, conversation bool) (string, error)
	// Resume loads a saved conversation (/resume [ID]; empty ID means the
	// most recent one).
	Resume func(ctx context.Context, id string) (Resumed, error)
	// Approvals shows (policy "") or changes the approval policy, or
	// applies a permission preset (/permissions [PRESET|POLICY], alias
	// /approvals; the presets are [tools.ApprovalPresets]' ids) and returns the line
	// to show.
	Approvals func(ctx context.Context, policy string) (string, error)
	// Permissions returns the sandbox mode and approval policy in force,
	// for /permissions to mark and start on; it may be called during a
	// turn.
	Permissions func() (sandbox, policy string)
	// MCP returns the MCP servers for /mcp, in order; it may be called
	// during a turn.
	MCP func() []MCPServer
	// Logout removes the saved login (/logout) and returns the line to
	// show; it is called while no turn runs.
	Logout func(ctx context.Context) (string, error)
	// Rename names the session (/rename NAME) and returns the name as
	// recorded; it is called while no turn runs.
	Rename func(ctx context.Context, name string) (string, error)
	// MCPPrompts lists the prompts of the MCP servers that are ready, each
	// offered in the / popup as /NAME; it is called as the popup is typed
	// into (so it must be quick) and may be called during a turn.
	MCPPrompts func() []MCPPrompt
	// GetMCPPrompt gets the prompt called name with args (MCP's
	// prompts/get) and returns the text to send.
	GetMCPPrompt func(ctx context.Context, name string, args map[string]string) (string, error)
	// History returns the conversation's history (/export); it is called
	// while no turn runs.
	History func() []transport.Item
	// Background lists the commands the model left running (/ps); Stop
	// ends one by id, or every one for -1, and says how many it ended
	// (/stop). Both may be called during a turn.
	Background func() []tools.Background
	Stop       func(id int) int
	// Agents lists the subagents of the session in use (/agents);
	// WatchAgents calls f, from any goroutine, at every change of one (a
	// line per change in the transcript), until stop. Nil: no subagents.
	Agents      func() []subagent.Info
	WatchAgents func(f func(subagent.Info)) (stop func())
	// SetMode switches the session's collaboration mode ("plan" or
	// "default", /plan) from its next turn on and returns the line to
	// show; Mode is the mode in force, for the status line (it may be
	// called during a turn). Nil: no plan mode.
	SetMode func(ctx context.Context, mode string) (string, error)
	Mode    func() string
	// SetServiceTier sets the service tier of the requests ("priority",
	// or "" for the provider's default) from the next turn on (/fast);
	// ServiceTier is the tier in force. Nil: no /fast.
	SetServiceTier func(tier string)
	ServiceTier    func() string
	// Side asks question aside from the conversation (/side), with its
	// history and the side's earlier exchanges as context, and returns
	// the answer and the exchange to pass as earlier next time; nothing
	// enters the history or the recording. It is called while no turn
	// runs. Nil: no /side.
	Side func(ctx context.Context, earlier []transport.Item, question string) (answer string, exchange []transport.Item, err error)
	// SetTheme saves the theme /theme chose ([tui] theme in config.toml,
	// as Codex); nil: the choice holds for the session only.
	SetTheme func(name string) error
	// Goal is /goal [OBJECTIVE|pause|resume|clear]: the line to show and
	// a message to send to pursue the goal ("" for none). Nil: no goals.
	Goal func(arg string) (info, send string, err error)
}

// ModelChoice is one model /model offers.
type ModelChoice struct {
	// Name is the model's slug.
	Name string
	// Description is a few words about it ("" for none).
	Description string
	// Efforts are the reasoning efforts it takes, in order; none means
	// it has no reasoning effort to choose.
	Efforts []string
}

// SessionInfo is one recorded session /resume offers.
type SessionInfo struct {
	// ID is the session's id.
	ID string
	// Title is its name or first prompt.
	Title string
	// Cwd is the directory it started in.
	Cwd string
	// Updated is when it was last used.
	Updated time.Time
}

// Resumed is a conversation loaded by [Commands.Resume].
type Resumed struct {
	// Engine continues the conversation.
	Engine Engine
	// Messages are shown in the transcript, oldest first.
	Messages []Message
}

// Message is one past message shown after /resume.
type Message struct {
	// Role is "user", "assistant" or "warning" (a problem found while
	// loading a recorded session, shown as a warning notice).
	Role string
	// Text is the message text (markdown for the assistant).
	Text string
}

// Run runs the interactive chat until the user quits (/quit, Ctrl-D on an
// empty composer, Ctrl-C twice within a second) or ctx is cancelled. It
// takes over the terminal (alternate screen, mouse wheel; inline without
// either when opts.Inline) and restores it on return; nothing else may
// write to the terminal meanwhile.
// Before returning it cancels the running turn and waits for every
// goroutine it started, including the engine's Turn. It returns nil when the
// user quit, ctx's error when ctx ended the chat.
func Run(ctx context.Context, opts Options) error {
	// The wheel scrolls the transcript; text is selected with Shift held,
	// as in other full-screen terminal programs.
	if opts.Inline {
		_, err := run(ctx, opts)
		return err
	}
	_, err := run(ctx, opts, tea.WithAltScreen(), tea.WithMouseCellMotion())
	return err
}

// run is Run with extra program options; it returns the final model, for
// tests.
func run(ctx context.Context, opts Options, popts ...tea.ProgramOption) (*Model, error) {
	if opts.Engine == nil {
		return nil, errors.New("tui: no engine")
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	j := newJobs()
	m := newModel(ctx, opts, j)
	popts = append([]tea.ProgramOption{tea.WithContext(ctx)}, popts...)
	if in, ok := pasteInput(opts.Input); ok {
		popts = append(popts, tea.WithInput(in))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	cancel()
	j.stop()
	// Messages sent while the last history write was in flight are written
	// now: the program no longer runs, and that write has ended.
	if p := m.hist.pending; len(p) > 0 && opts.HistoryPath != "" {
		_ = appendHistory(opts.HistoryPath, opts.HistoryMaxBytes, p...) // best effort: the user is leaving
	}
	if errors.Is(err, tea.ErrProgramKilled) && parent.Err() != nil {
		return m, parent.Err()
	}
	return m, err
}
