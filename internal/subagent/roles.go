// Package subagent holds what agent's subagents are, apart from running
// them (internal/app does that): Codex's agent roles and where they are
// found, the collaboration tools' specs, a subagent's status and how
// the tools answer with it.
package subagent

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/setup"
)

// DefaultRole is the role of a subagent spawned without agent_type.
const DefaultRole = "default"

// Role is what a subagent of one role is given: Codex's agent roles
// (codex-rs core/src/agent/role.rs), declared in [agents.<name>] or found
// as a file in an agents/ folder.
type Role struct {
	Name, Description string
	// File is the role's file ("" for a built-in role or a table without
	// one).
	File string
	// DeveloperInstructions, Model, ReasoningEffort and Sandbox are the
	// file's keys of the same names (sandbox_mode: narrowed to the
	// parent's, never widened).
	DeveloperInstructions, Model, ReasoningEffort, Sandbox string
	Nicknames                                              []string
	// Ignored are the file's keys agent does not apply to a subagent.
	Ignored []string
}

// builtinRoles are Codex's built-in roles.
func builtinRoles() map[string]Role {
	return map[string]Role{
		DefaultRole: {Name: DefaultRole, Description: "Default agent."},
		"explorer": {Name: "explorer", Description: "Use `explorer` for specific codebase questions.\n" +
			"Explorers are fast and authoritative. Ask them specific, well-scoped questions on the codebase; " +
			"spawn several in parallel for distinct questions, and reuse them for related ones."},
		"worker": {Name: "worker", Description: "Use for execution and production work: implement part of a feature, " +
			"fix tests or bugs, split large refactors into independent chunks.\n" +
			"Explicitly assign ownership of the task (files / responsibility) to avoid conflicting edits."},
	}
}

// Roles are the roles a session working in cwd may spawn, as Codex
// finds them: the built-ins, then [agents.<name>] tables, then every
// *.toml file under the home's agents/ folder and, in a trusted project,
// under each .codex/agents/ from the project's root down to cwd (a later
// one of the same name wins). A file that cannot be read or lacks what
// Codex requires is a problem naming it; the rest still load.
func Roles(cfg config.Config, home, cwd string) (map[string]Role, []string) {
	roles := builtinRoles()
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents.Roles)) {
		rc := cfg.Agents.Roles[name]
		r := Role{Name: name, Description: rc.Description, Nicknames: rc.NicknameCandidates}
		if rc.ConfigFile != "" {
			f, err := readRoleFile(rc.ConfigFile, name)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			f.Description = cmp.Or(f.Description, r.Description)
			if len(f.Nicknames) == 0 {
				f.Nicknames = r.Nicknames
			}
			r = f
		}
		if r.Description == "" {
			problems = append(problems, fmt.Sprintf("agent role `%s` must define a description", name))
			continue
		}
		roles[r.Name] = r
	}
	dirs := []string{filepath.Join(home, "agents")}
	if cwd != "" && cfg.ProjectTrust(cwd) == config.TrustTrusted {
		for _, d := range setup.ProjectDirs(home, cwd) {
			dirs = append(dirs, filepath.Join(d, "agents"))
		}
	}
	for _, dir := range dirs {
		var files []string
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".toml") {
				files = append(files, path)
			}
			return nil
		})
		sort.Strings(files)
		for _, path := range files {
			r, err := readRoleFile(path, "")
			if err == nil && r.Description == "" {
				err = fmt.Errorf("agent role file %s must define a description", path)
			}
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			roles[r.Name] = r
		}
	}
	return roles, problems
}

// readRoleFile reads a role file: name (else hint), description,
// nickname_candidates, developer_instructions (required, as Codex
// requires it), and the config keys a subagent takes from it.
func readRoleFile(path, hint string) (Role, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Role{}, fmt.Errorf("agent role file %s: %w", path, err)
	}
	var m map[string]any
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		return Role{}, fmt.Errorf("failed to parse agent role file at %s: %w", path, err)
	}
	r := Role{File: path}
	str := func(k string) (string, error) {
		v, ok := m[k]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("agent role file %s: %s must be a string", path, k)
		}
		return strings.TrimSpace(s), nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &r.Name}, {"description", &r.Description}, {"developer_instructions", &r.DeveloperInstructions},
		{"model", &r.Model}, {"model_reasoning_effort", &r.ReasoningEffort}, {"sandbox_mode", &r.Sandbox}} {
		if *f.dst, err = str(f.key); err != nil {
			return Role{}, err
		}
	}
	if r.DeveloperInstructions == "" {
		return Role{}, fmt.Errorf("agent role file at %s must define `developer_instructions`", path)
	}
	if n, ok := m["nickname_candidates"].([]any); ok {
		for _, x := range n {
			if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
				r.Nicknames = append(r.Nicknames, strings.TrimSpace(s))
			}
		}
	}
	if r.Name == "" {
		r.Name = hint
	}
	if r.Name == "" {
		return Role{}, fmt.Errorf("agent role file at %s must define a non-empty `name`", path)
	}
	used := []string{"name", "description", "developer_instructions", "model", "model_reasoning_effort", "sandbox_mode", "nickname_candidates"}
	for _, k := range md.Keys() {
		if len(k) == 1 && !slices.Contains(used, k[0]) {
			r.Ignored = append(r.Ignored, k[0])
		}
	}
	return r, nil
}

// roleDescriptions is the agent_type parameter's description: Codex's
// wording with every role the session may spawn.
func roleDescriptions(roles map[string]Role) string {
	var b strings.Builder
	b.WriteString("Optional type name for the new agent. If omitted, `default` is used.\nAvailable roles:")
	for _, name := range slices.Sorted(maps.Keys(roles)) {
		r := roles[name]
		fmt.Fprintf(&b, "\n%s: {\n%s", name, r.Description)
		switch {
		case r.Model != "" && r.ReasoningEffort != "":
			fmt.Fprintf(&b, "\n- This role's model is set to `%s` and its reasoning effort is set to `%s`. These settings cannot be changed.", r.Model, r.ReasoningEffort)
		case r.Model != "":
			fmt.Fprintf(&b, "\n- This role's model is set to `%s` and cannot be changed.", r.Model)
		case r.ReasoningEffort != "":
			fmt.Fprintf(&b, "\n- This role's reasoning effort is set to `%s` and cannot be changed.", r.ReasoningEffort)
		}
		b.WriteString("\n}")
	}
	return b.String()
}
