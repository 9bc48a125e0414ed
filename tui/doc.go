// Package tui is the interactive chat: a bubbletea front end that drives an
// [Engine] (a *session.Session) and renders its events as a transcript, a
// multi-line composer, a status line and approval prompts.
//
// Start with [Run]. Approvals reach the chat through an [Approver], whose
// Approve method is plugged into session.Options.Approve; the model's
// request_user_input questions through its AskUser method
// (session.Options.AskUser), answered in a box of their own.
//
// Invariants:
//   - One root tea.Model ([Model]); components are plain structs rendered
//     with Render(width, look) methods; Update is a small dispatcher and does
//     no IO: hooks, git, history writes and turns run in tea.Cmds.
//   - A turn's events reach Update through one channel; one command reads
//     one event and is re-armed after it is applied. The turn's end travels
//     the same channel, after its last event, so it is never seen early.
//   - Every goroutine a command starts (a turn, a hook) is owned by Run,
//     which cancels and waits for it before returning.
//   - Settled transcript blocks are rendered once per width and cached; View
//     draws only the visible window, so a delta costs the same whatever the
//     transcript's length.
//   - Time comes from Options.Now; ticks only trigger redraws.
//
// Enter and pastes: input is classified per read (see pasteReader). A
// carriage return alone, or text followed by one carriage return at the
// end of a read, is typed text and Enter: it submits (tmux's send-keys TEXT
// Enter, or TEXT and Enter read together). Text with a line break followed
// by more text or another line break, or a read that fills the buffer and
// holds a line break (and the reads that continue it), is a paste: it is
// inserted whole and nothing is sent. A terminal's bracketed paste is a
// paste, and an Enter after it submits. Keys are matched by type, never by
// text: the word "enter" typed is text.
//
// Slash commands live in one registry (registry.go): builtinCommands and
// sessionCommands are run, absentCommands say in one line what to use
// instead. The / popup, /help and lookup read the registry, custom prompts
// (/prompts:NAME) and the MCP servers' prompts (/mcp__SERVER__PROMPT)
// included. A command that lets
// the user choose opens a picker (picker.go: a title, items filtered by
// typing, Enter chooses, Esc closes, Tab optional; loadPicker fills one
// from a goroutine); list.go is the scrolling list both draw with.
package tui
