package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// promptPrefix is the name custom prompts run under: /prompts:NAME.
const promptPrefix = "/prompts:"

// customPrompt is a Markdown file of a prompts directory: NAME.md, with an
// optional front matter (description, argument-hint) before its body.
type customPrompt struct {
	name, path        string
	description, hint string
	body              string
}

// promptsMsg is the custom prompts found, and a line for each file that
// could not be used.
type promptsMsg struct {
	prompts  []customPrompt
	problems []string
}

// loadPrompts reads the prompts directories on a goroutine of its own.
func (m *Model) loadPrompts() tea.Cmd {
	dirs := m.opts.PromptDirs
	if len(dirs) == 0 {
		return nil
	}
	return m.jobs.cmd(func() tea.Msg { return readPrompts(dirs) })
}

// readPrompts reads every NAME.md of dirs; a later directory's NAME wins.
// A directory that does not exist holds no prompt.
func readPrompts(dirs []string) promptsMsg {
	var msg promptsMsg
	byName := map[string]customPrompt{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			continue
		}
		for _, f := range files {
			p, err := readPrompt(f)
			if err != nil {
				msg.problems = append(msg.problems, fmt.Sprintf("custom prompt %s: %v", f, err))
				continue
			}
			byName[p.name] = p
		}
	}
	for _, p := range byName {
		msg.prompts = append(msg.prompts, p)
	}
	sort.Slice(msg.prompts, func(i, j int) bool { return msg.prompts[i].name < msg.prompts[j].name })
	return msg
}

// readPrompt reads one prompt file and its front matter.
func readPrompt(path string) (customPrompt, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return customPrompt{}, fmt.Errorf("cannot be read: %w", err)
	}
	p := customPrompt{name: strings.TrimSuffix(filepath.Base(path), ".md"), path: path}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	if strings.ContainsAny(p.name, " \t") {
		return p, errors.New("its name has a space; rename the file")
	}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		front, body, found := strings.Cut(rest, "\n---")
		if !found {
			return p, errors.New("its front matter (from the first ---) never ends with a --- line")
		}
		text = strings.TrimPrefix(strings.TrimPrefix(body, "-"), "\n")
		for _, ln := range strings.Split(front, "\n") {
			k, v, _ := strings.Cut(ln, ":")
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch strings.TrimSpace(k) {
			case "description":
				p.description = v
			case "argument-hint", "argument_hint":
				p.hint = v
			}
		}
	}
	p.body = text
	return p, nil
}

// promptsLoaded adopts the prompts and names the files that failed.
func (m *Model) promptsLoaded(msg promptsMsg) tea.Cmd {
	m.prompts = msg.prompts
	for _, pr := range msg.problems {
		m.tr.add(&notice{level: levelWarn, text: clean(pr)})
	}
	m.pop.text = "\x00" // the popup lists them from now on
	return nil
}

// promptCommands are the custom prompts as commands.
func (m *Model) promptCommands() []command {
	out := make([]command, 0, len(m.prompts))
	for _, p := range m.prompts {
		help := p.description
		if help == "" {
			help = "custom prompt (" + filepath.Base(p.path) + ")"
		}
		out = append(out, command{name: promptPrefix + p.name, args: p.hint, help: help, run: p.run})
	}
	return out
}

// run sends the prompt expanded with the line's arguments, or says in one
// line why it cannot (nothing is sent then).
func (p customPrompt) run(m *Model, arg string) tea.Cmd {
	text, err := expandPrompt(p.body, arg)
	if err != nil {
		usage := promptPrefix + p.name
		if p.hint != "" {
			usage += " " + p.hint
		}
		m.tr.add(&notice{level: levelWarn, text: clean(fmt.Sprintf("prompt %s: %v (usage: %s)", p.name, err, usage))})
		m.follow = true
		return nil
	}
	return m.sendMessage(text)
}

// promptsCmd is /prompts: the custom prompts, then the MCP servers'.
func (m *Model) promptsCmd(string) tea.Cmd {
	cmds := slices.Concat(m.promptCommands(), m.mcpPromptCommands())
	if len(cmds) == 0 {
		m.info("No custom prompts: put NAME.md files in "+orNone(strings.Join(m.opts.PromptDirs, " or ")), nil)
		return nil
	}
	var body []string
	for _, c := range cmds {
		body = append(body, fmt.Sprintf("  %-24s %s", c.name+" "+c.args, c.help))
	}
	m.info("Custom prompts", body)
	return nil
}

// expandPrompt fills body's placeholders from args: $1…$9 the positional
// arguments (empty when not given), $ARGUMENTS all of them, $NAME a
// NAME=value argument (required), $$ a dollar sign. Arguments split like a
// shell's words, "quoted" or 'quoted' to hold spaces.
func expandPrompt(body, args string) (string, error) {
	words, err := splitArgs(args)
	if err != nil {
		return "", err
	}
	// $$, $1…$9, $ARGUMENTS and $NAME; a NAME=value argument.
	placeholderRE := regexp.MustCompile(`\$(\$|[1-9]|[A-Z][A-Z0-9_]*)`)
	namedArgRE := regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=(.*)$`)
	named := map[string]string{}
	var pos []string
	for _, w := range words {
		if sm := namedArgRE.FindStringSubmatch(w); sm != nil {
			named[sm[1]] = sm[2]
			continue
		}
		pos = append(pos, w)
	}
	var missing []string
	out := placeholderRE.ReplaceAllStringFunc(body, func(ph string) string {
		key := ph[1:]
		switch {
		case key == "$":
			return "$"
		case key == "ARGUMENTS":
			return strings.Join(pos, " ")
		case len(key) == 1 && key[0] >= '1' && key[0] <= '9':
			if i, _ := strconv.Atoi(key); i <= len(pos) {
				return pos[i-1]
			}
			return ""
		}
		v, ok := named[key]
		if !ok && !containsString(missing, key) {
			missing = append(missing, key)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("missing %s", strings.Join(withValue(missing), ", "))
	}
	return out, nil
}

func withValue(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "=…"
	}
	return out
}

// splitArgs splits s into words as a shell does for quotes: "a b" and
// 'a b' are one word.
func splitArgs(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a %c quote is not closed", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
