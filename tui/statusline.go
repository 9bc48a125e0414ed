package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// userStatusTimeout bounds one run of the /statusline command.
const userStatusTimeout = 2 * time.Second

// userStatus is the status line a user command draws (/statusline
// COMMAND), as Claude Code's statusLine: the command gets the session as
// JSON on standard input, and the first line it prints takes the place of
// the model and the token count in the status line. It runs again when
// what it is given changes (the model, the tokens, a turn starting or
// ending), one run at a time.
type userStatus struct {
	command string
	text    string // the last run's line, cleaned of control sequences
	ran     string // the input the last run started with
	running bool
}

// userStatusMsg is the end of a run of the status line command.
type userStatusMsg struct {
	command, text string
	err           error
}

// userStatusInput is what the status line command reads on standard
// input; the names follow Claude Code's statusLine where it has one.
type userStatusInput struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
	} `json:"workspace"`
	Model struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	ContextWindow struct {
		UsedTokens  int64 `json:"used_tokens"`
		TotalTokens int64 `json:"total_tokens"`
	} `json:"context_window"`
	// Cost is the session's cost, absent while unknown.
	Cost        *userStatusCost `json:"cost,omitempty"`
	TurnRunning bool            `json:"turn_running"`
	PlanMode    bool            `json:"plan_mode"`
}

// userStatusCost is the session's cost as Claude Code's statusLine gives
// it.
type userStatusCost struct {
	TotalCostUSD float64 `json:"total_cost_usd"`
}

// userStatusJSON is the status line command's input now.
func (m *Model) userStatusJSON() string {
	var in userStatusInput
	if m.opts.SessionID != nil {
		in.SessionID = m.opts.SessionID()
	}
	in.Cwd, in.Workspace.CurrentDir = m.opts.Dir, m.opts.Dir
	in.Model.ID, in.Model.DisplayName = m.opts.Model, m.opts.Model
	in.ContextWindow.UsedTokens, in.ContextWindow.TotalTokens = int64(m.last.TotalTokens), int64(m.opts.ContextWindow)
	if m.cost != nil {
		in.Cost = &userStatusCost{TotalCostUSD: *m.cost}
	}
	in.TurnRunning, in.PlanMode = m.turn != nil, m.planMode()
	b, _ := json.Marshal(in)
	return string(b)
}

// refreshUserStatus starts a run of the status line command when its
// input changed since the last one and none runs.
func (m *Model) refreshUserStatus() tea.Cmd {
	us := m.userStatus
	if us == nil || us.running {
		return nil
	}
	in := m.userStatusJSON()
	if in == us.ran {
		return nil
	}
	us.ran, us.running = in, true
	command, dir := us.command, m.opts.Dir
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), userStatusTimeout)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", command)
		c.Dir, c.Stdin = dir, strings.NewReader(in)
		var out, stderr bytes.Buffer
		c.Stdout, c.Stderr = &out, &stderr
		err := c.Run()
		if ctx.Err() != nil {
			err = errors.New("took over " + userStatusTimeout.String())
		} else if err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				err = errors.New(err.Error() + ": " + firstLine(msg))
			}
		}
		return userStatusMsg{command: command, text: firstLine(out.String()), err: err}
	}
}

// updateUserStatus takes a run's line; a failure is said in the status
// line itself, so the user sees why it is not theirs.
func (m *Model) updateUserStatus(msg userStatusMsg) {
	us := m.userStatus
	if us == nil || us.command != msg.command {
		return // /statusline changed meanwhile
	}
	us.running = false
	us.text = clean(msg.text)
	if msg.err != nil {
		us.text = "status line command failed: " + clean(msg.err.Error())
	}
}

// statuslineCmd is /statusline [COMMAND|off]: COMMAND (run with sh -c)
// draws the status line from the session's JSON on its standard input;
// off brings agent's own back; alone, it says which is in use.
func (m *Model) statuslineCmd(arg string) tea.Cmd {
	switch {
	case arg == "" && m.userStatus == nil:
		m.info("Status line: agent's own (the model and the context used). /statusline COMMAND draws it with COMMAND, "+
			"which reads the session as JSON on standard input and prints one line.", nil)
		return nil
	case arg == "":
		m.info("Status line: drawn by "+m.userStatus.command+" (/statusline off for agent's own).", nil)
		return nil
	case arg == "off":
		m.userStatus = nil
		m.info("Status line: agent's own again.", nil)
		return nil
	}
	m.userStatus = &userStatus{command: arg}
	m.info("Status line: drawn by "+arg+" from now on, for this chat.", nil)
	return m.refreshUserStatus()
}
