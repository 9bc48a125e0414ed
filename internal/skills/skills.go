// Package skills is Codex's skills (the agentskills.io format): folders
// holding a SKILL.md whose YAML front matter names and describes the
// skill, found where Codex 0.171 finds them, listed to the model by name
// and description within a budget (progressive disclosure), the body sent
// only when the user names the skill ($name) or the model reads the file.
package skills

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Skill is one SKILL.md.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md file.
	Path string
	// Root is the skills directory it was found under.
	Root string
}

// Problem is a SKILL.md that was skipped: the file, the line and why.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s; skill skipped", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s; skill skipped", p.Path, p.Msg)
}

// Roots are the skills directories of a session in cwd, in Codex's order:
// the repository's .agents/skills from cwd up to the repository root
// (nearest first), the home's skills/, then ~/.agents/skills.
func Roots(home, userHome, cwd string) []string {
	var roots []string
	if cwd != "" {
		for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
			roots = append(roots, filepath.Join(d, ".agents", "skills"))
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
				break
			}
		}
	}
	if home != "" {
		roots = append(roots, filepath.Join(home, "skills"))
	}
	if userHome != "" {
		roots = append(roots, filepath.Join(userHome, ".agents", "skills"))
	}
	return roots
}

// maxDepth bounds how deep below a root a SKILL.md is looked for.
const maxDepth = 6

// Discover reads every SKILL.md under roots (a missing root is no
// problem). A skill whose name an earlier one took is skipped with a
// problem naming both.
func Discover(roots []string) (found []Skill, problems []Problem) {
	seen := map[string]string{}
	for _, root := range roots {
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			continue
		}
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				problems = append(problems, Problem{Path: path, Msg: err.Error()})
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() {
				if strings.Count(rel, string(filepath.Separator)) >= maxDepth || (path != root && strings.HasPrefix(d.Name(), ".") && d.Name() != ".system") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Name() != "SKILL.md" {
				return nil
			}
			s, p := Read(path)
			if p != nil {
				problems = append(problems, *p)
				return nil
			}
			if first, ok := seen[s.Name]; ok {
				problems = append(problems, Problem{Path: path, Msg: fmt.Sprintf("the name %q is taken by %s", s.Name, first)})
				return nil
			}
			seen[s.Name] = path
			s.Root = root
			found = append(found, s)
			return nil
		})
	}
	return found, problems
}

// nameRule is agentskills.io's: lowercase letters, digits and hyphens.
var nameRule = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Read reads and checks one SKILL.md: front matter between "---" lines,
// with a name (at most 64 of a-z, 0-9 and -) and a description (at most
// 1024 characters).
func Read(path string) (Skill, *Problem) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, &Problem{Path: path, Msg: err.Error()}
	}
	text := string(bytes.TrimPrefix(data, []byte("\ufeff")))
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return Skill{}, &Problem{Path: path, Line: 1, Msg: "no front matter: the file must begin with a --- line"}
	}
	end := strings.Index(text[4:], "\n---")
	if end < 0 {
		return Skill{}, &Problem{Path: path, Line: 1, Msg: "the front matter is not closed by a --- line"}
	}
	front := text[4 : 4+end+1]
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		line := 1
		var te *yaml.TypeError
		if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &line)
			line++ // below the opening ---
		} else if asTypeError(err, &te) {
			line = 2
		}
		return Skill{}, &Problem{Path: path, Line: line, Msg: "front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	lineOf := func(key string) int {
		for i, l := range strings.Split(front, "\n") {
			if strings.HasPrefix(l, key+":") {
				return i + 2
			}
		}
		return 1
	}
	name, ok := fm["name"].(string)
	switch {
	case !ok || strings.TrimSpace(name) == "":
		return Skill{}, &Problem{Path: path, Line: lineOf("name"), Msg: "front matter has no name"}
	case len(name) > 64 || !nameRule.MatchString(name):
		return Skill{}, &Problem{Path: path, Line: lineOf("name"), Msg: fmt.Sprintf("invalid name %q: at most 64 lowercase letters, digits and hyphens", name)}
	}
	desc, ok := fm["description"].(string)
	switch {
	case !ok || strings.TrimSpace(desc) == "":
		return Skill{}, &Problem{Path: path, Line: lineOf("description"), Msg: "front matter has no description"}
	case len([]rune(desc)) > 1024:
		return Skill{}, &Problem{Path: path, Line: lineOf("description"), Msg: "the description is longer than 1024 characters"}
	}
	return Skill{Name: name, Description: strings.Join(strings.Fields(desc), " "), Path: path}, nil
}

func asTypeError(err error, te **yaml.TypeError) bool {
	t, ok := err.(*yaml.TypeError)
	if ok {
		*te = t
	}
	return ok
}

// DefaultBudget is the characters the list may take when the context
// window is unknown (Codex: 8,000).
const DefaultBudget = 8000

// Budget is the characters of the list for a context window of tokens:
// about 2% of it (4 characters a token), DefaultBudget when unknown.
func Budget(window int64) int {
	if window <= 0 {
		return DefaultBudget
	}
	return int(window * 2 / 100 * 4)
}

// Instructions is the developer text listing skills for the model, in
// Codex 0.171's words and layout (<skills_instructions>, the roots table,
// "- name: description (file: rN/...)"), at most budget characters of
// entries; omitted counts the skills that did not fit.
func Instructions(list []Skill, budget int) (text string, omitted int) {
	if len(list) == 0 {
		return "", 0
	}
	var roots []string
	for _, s := range list {
		if !slices.Contains(roots, s.Root) {
			roots = append(roots, s.Root)
		}
	}
	var b strings.Builder
	b.WriteString("<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. " +
		"Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be " +
		"expanded into an absolute path using the skill roots table.\n### Skill roots\n")
	for i, r := range roots {
		fmt.Fprintf(&b, "- `r%d` = `%s`\n", i, r)
	}
	b.WriteString("### Available skills\n")
	used := 0
	for _, s := range list {
		rel, _ := filepath.Rel(s.Root, s.Path)
		entry := fmt.Sprintf("- %s: %s (file: r%d/%s)\n", s.Name, s.Description, slices.Index(roots, s.Root), filepath.ToSlash(rel))
		if used+len(entry) > budget {
			omitted++
			continue
		}
		used += len(entry)
		b.WriteString(entry)
	}
	b.WriteString("</skills_instructions>")
	return b.String(), omitted
}

// mention is $name in a prompt: a $ not inside a word, then a skill name.
var mention = regexp.MustCompile(`(^|[^\w$])\$([a-z0-9]+(?:-[a-z0-9]+)*)`)

// Mentioned returns the skills of list the prompt names with $name, in
// the prompt's order, each once.
func Mentioned(list []Skill, prompt string) []Skill {
	var out []Skill
	for _, m := range mention.FindAllStringSubmatch(prompt, -1) {
		i := slices.IndexFunc(list, func(s Skill) bool { return s.Name == m[2] })
		if i >= 0 && !slices.ContainsFunc(out, func(s Skill) bool { return s.Name == m[2] }) {
			out = append(out, list[i])
		}
	}
	return out
}

// Message is the user message carrying a skill's SKILL.md, as Codex sends
// it after a prompt that names the skill.
func Message(s Skill) (string, error) {
	body, err := os.ReadFile(s.Path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("<skill>\n<name>%s</name>\n<path>%s</path>\n%s\n</skill>", s.Name, s.Path, body), nil
}
