package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// MCPPrompt is one prompt of an MCP server, run as /NAME.
type MCPPrompt struct {
	// Name is its command name without the slash: mcp__SERVER__PROMPT.
	Name string
	// Server is the configured name of its server.
	Server string
	// Description says what it does ("" for nothing).
	Description string
	// Arguments are what it takes, in order.
	Arguments []MCPPromptArgument
}

// MCPPromptArgument is one argument of an [MCPPrompt].
type MCPPromptArgument struct {
	Name, Description string
	Required          bool
}

// mcpPromptCommands are the MCP servers' prompts as commands.
func (m *Model) mcpPromptCommands() []command {
	f := m.opts.Commands.MCPPrompts
	if f == nil {
		return nil
	}
	list := f()
	out := make([]command, 0, len(list))
	for _, p := range list {
		help := p.Description
		if help == "" {
			help = "MCP prompt"
		}
		help += " (MCP server " + p.Server + ")"
		out = append(out, command{name: "/" + clean(p.Name), args: p.hint(), help: clean(help), run: p.run})
	}
	return out
}

// hint is the arguments as the popup shows them: NAME for a required one,
// [NAME] for an optional one.
func (p MCPPrompt) hint() string {
	var parts []string
	for _, a := range p.Arguments {
		n := strings.ToUpper(clean(a.Name))
		if !a.Required {
			n = "[" + n + "]"
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, " ")
}

// run gets the prompt with the line's arguments and sends its text, or
// says in one line why it cannot (nothing is sent then).
func (p MCPPrompt) run(m *Model, arg string) tea.Cmd {
	fail := func(err error) tea.Cmd {
		usage := "/" + p.Name
		if h := p.hint(); h != "" {
			usage += " " + h
		}
		m.tr.add(&notice{level: levelWarn, text: clean(fmt.Sprintf("prompt %s: %v (usage: %s)", p.Name, err, usage))})
		m.follow = true
		return nil
	}
	args, err := p.bind(arg)
	if err != nil {
		return fail(err)
	}
	get := m.opts.Commands.GetMCPPrompt
	if get == nil {
		return m.unavailable("/" + p.Name)
	}
	name := p.Name
	return m.hook(func(ctx context.Context) commandMsg {
		text, err := get(ctx, name, args)
		if err != nil {
			return commandMsg{warn: fmt.Sprintf("prompt %s: %v; nothing was sent", name, err)}
		}
		return commandMsg{send: text}
	})
}

// bind gives the prompt's arguments their values from the line: NAME=value
// names one (NAME as the prompt calls it); the other words fill the
// arguments not named, in order, the last of them taking the words left
// over. Words split as a shell's ("a b" is one word). A required argument
// left without a value, or words for a prompt that takes none, is an
// error.
func (p MCPPrompt) bind(line string) (map[string]string, error) {
	words, err := splitArgs(line)
	if err != nil {
		return nil, err
	}
	if len(p.Arguments) == 0 {
		if len(words) > 0 {
			return nil, errors.New("it takes no arguments")
		}
		return nil, nil
	}
	args := map[string]string{}
	var pos []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && p.takes(k) {
			args[k] = v
			continue
		}
		pos = append(pos, w)
	}
	var open []string // the arguments left for the positional words
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; !ok {
			open = append(open, a.Name)
		}
	}
	if len(pos) > 0 && len(open) == 0 {
		return nil, fmt.Errorf("every argument is named; %q is left over", strings.Join(pos, " "))
	}
	for i, w := range pos {
		if i >= len(open)-1 {
			args[open[len(open)-1]] = strings.Join(pos[i:], " ")
			break
		}
		args[open[i]] = w
	}
	var missing []string
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s", strings.Join(withValue(missing), ", "))
	}
	return args, nil
}

// takes reports whether the prompt has an argument called name.
func (p MCPPrompt) takes(name string) bool {
	for _, a := range p.Arguments {
		if a.Name == name {
			return true
		}
	}
	return false
}
