package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// command is one slash command: what the / popup and /help show, and what
// it does. Every command Codex 0.169 has is here: the ones agent has run;
// the others answer absent, one line saying so and what to use instead.
type command struct {
	name    string   // "/model"
	aliases []string // other names it answers to ("/approvals")
	args    string   // "[NAME]", for /help and the popup
	help    string   // one line
	// run runs it with the rest of the line (trimmed). nil: absent.
	run func(m *Model, arg string) tea.Cmd
	// absent is the line a command agent does not have answers with.
	absent string
}

// builtinCommands are the commands agent has, in /help and popup order.
func builtinCommands() []command {
	return []command{
		{name: "/model", args: "[NAME]", help: "choose the model (and reasoning effort) for the next turns", run: (*Model).modelCmd},
		{name: "/permissions", aliases: []string{"/approvals"}, args: "[PRESET|POLICY]", help: "choose what agent may do without asking", run: (*Model).permissionsCmd},
		{name: "/new", help: "start a new conversation", run: (*Model).newCmd},
		{name: "/clear", help: "clear the screen and start a new conversation", run: (*Model).newCmd},
		{name: "/resume", args: "[ID]", help: "continue a saved conversation of this directory", run: (*Model).resumeCmd},
		{name: "/fork", help: "branch this conversation into a new session", run: (*Model).forkCmd},
		{name: "/goal", args: "[OBJECTIVE|pause|resume|clear]", help: "a goal pursued over turns until done or a budget ends it", run: (*Model).goalCmd},
		{name: "/plan", args: "[PROMPT]", help: "plan mode: plan without changing anything (/plan again leaves it)", run: (*Model).planCmd},
		{name: "/compact", help: "summarize the conversation to free context", run: (*Model).compactCmd},
		{name: "/undo", help: "put back the files the last turn changed (right after /compact: the history)", run: (*Model).undoCmd},
		{name: "/rewind", help: "go back to before a turn: its files, the conversation, or both", run: (*Model).rewindCmd},
		{name: "/diff", help: "show the git diff of the working tree", run: func(m *Model, _ string) tea.Cmd { return m.diff() }},
		{name: "/mention", help: "mention a file (@ does the same)", run: (*Model).mentionCmd},
		{name: "/status", help: "configuration, provider, transport, tokens and retries", run: func(m *Model, _ string) tea.Cmd { m.showStatus(); return nil }},
		{name: "/mcp", help: "MCP servers, their state, tools and prompts", run: func(m *Model, _ string) tea.Cmd { m.showMCP(); return nil }},
		{name: "/pwd", help: "the directory agent works in", run: (*Model).pwdCmd},
		{name: "/hooks", args: "[trust KEY|all]", help: "lifecycle hooks: source and trust; trust one as it is now", run: (*Model).hooksCmd},
		{name: "/skills", args: "[NAME]", help: "list the skills; /skills NAME puts $NAME in the message", run: (*Model).skillsCmd},
		{name: "/prompts", help: "list the custom prompts (/prompts:NAME runs one) and the MCP prompts", run: (*Model).promptsCmd},
		{name: "/help", help: "commands and keys", run: func(m *Model, _ string) tea.Cmd { m.showHelp(); return nil }},
		{name: "/quit", aliases: []string{"/exit"}, help: "leave agent", run: func(m *Model, _ string) tea.Cmd { return m.quit() }},
	}
}

// absentCommands are the Codex 0.169 commands agent does not have, each
// with what to use instead.
func absentCommands() []command {
	no := func(name, line string) command { return command{name: name, absent: name + ": " + line} }
	return []command{
		no("/presets", "agent has no presets; /model and /permissions set what they would"),
		no("/ide", "agent has no IDE integration; run it in the IDE's terminal"),
		no("/experimental", "agent has no experimental features to toggle; config.toml holds its settings"),
		no("/approve", "agent asks at the approval prompt (y, a, n); /permissions changes when it asks"),
		no("/memories", "agent keeps no memories; put lasting instructions in AGENTS.md"),
		no("/import", "agent imports nothing; `agent resume` opens its own sessions"),
		no("/archive", "agent does not archive sessions; they are files under $AGENT_HOME/sessions"),
		no("/delete", "agent does not delete sessions; remove the file under $AGENT_HOME/sessions"),
		no("/worktree", "agent does not make worktrees; `git worktree add` one and run agent there"),
		no("/config", "edit config.toml in $AGENT_HOME; /status names the file in use"),
		no("/recap", "agent has no recap; ask for a summary, or /compact"),
		no("/voice", "agent has no voice input; type, or paste dictated text"),
		no("/raw", "agent has no raw mode; ctrl+t shows the transcript as text"),
		no("/tui", "agent has one chat layout; `agent exec` runs without it"),
		no("/daemon", "agent has no daemon; `agent exec` runs headless"),
		no("/cd", "agent works in one directory; start it with `agent -C DIR`"),
		no("/pets", "agent has no pets; the status line shows what runs"),
		no("/feedback", "agent sends no feedback; report problems to its maintainers"),
	}
}

// commands are the commands the popup offers: the builtin ones, then the
// custom prompts, then the MCP servers' prompts.
func (m *Model) commands() []command {
	return slices.Concat(builtinCommands(), sessionCommands(), extraCommands(), m.promptCommands(), m.mcpPromptCommands())
}

// lookup finds the command called name (or an alias of it), among every
// command agent knows of, present or not.
func (m *Model) lookup(name string) (command, bool) {
	for _, set := range [][]command{m.commands(), absentCommands()} {
		for _, c := range set {
			if c.name == name || containsString(c.aliases, name) {
				return c, true
			}
		}
	}
	return command{}, false
}

// known reports whether name is a command agent knows of, present or not.
func (m *Model) known(name string) bool {
	_, ok := m.lookup(name)
	return ok
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// slash runs a slash command line.
func (m *Model) slash(line string) tea.Cmd {
	fields := strings.Fields(line)
	name, arg := fields[0], strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	c, ok := m.lookup(name)
	switch {
	case !ok:
		m.tr.add(&notice{level: levelInfo, text: "Unrecognized command '" + name + `'. Type "/" for a list of supported commands.`})
		return nil
	case c.run == nil:
		m.tr.add(&notice{level: levelInfo, text: c.absent})
		m.follow = true
		return nil
	}
	return c.run(m, arg)
}
