// Package shellenv builds the environment of the processes agent starts
// for the model: the commands of exec_command (and so of write_stdin
// sessions) and stdio MCP servers.
//
// A [Policy] is [shell_environment_policy] of config.toml, applied in the
// reference client's order (codex-rs/core/src/exec_env.rs):
//
//  1. start from Inherit: every variable (all), the core set (core) or
//     none;
//  2. unless IgnoreDefaultExcludes, drop names matching *KEY*, *SECRET*
//     or *TOKEN* (case-insensitive);
//  3. drop names matching any Exclude pattern;
//  4. set every Set entry;
//  5. if IncludeOnly is not empty, keep only names matching one of its
//     patterns.
//
// Patterns are globs with * and ? only, matched against the whole name,
// ignoring case.
package shellenv

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Inherit is the starting set of a [Policy].
type Inherit string

// The values of inherit.
const (
	// InheritAll starts from agent's whole environment.
	InheritAll Inherit = "all"
	// InheritCore starts from [CoreVars].
	InheritCore Inherit = "core"
	// InheritNone starts from nothing.
	InheritNone Inherit = "none"
)

// CoreVars are the variables inherit = "core" keeps, as the reference.
func CoreVars() []string {
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP"}
}

// DefaultExcludes are the patterns dropped unless IgnoreDefaultExcludes.
func DefaultExcludes() []string { return []string{"*KEY*", "*SECRET*", "*TOKEN*"} }

// MCPBaseVars are the variables a stdio MCP server gets from agent's
// environment without asking, as the reference client's default set:
// enough to find programs and a home, nothing secret.
func MCPBaseVars() []string {
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}
}

// Policy says which of agent's environment variables a child process
// gets. The zero Policy inherits everything except the default excludes.
type Policy struct {
	// Inherit is the starting set; "" means [InheritAll].
	Inherit Inherit
	// Names are variables inherited as well, by exact name, whatever
	// Inherit says (an MCP server's env_vars).
	Names []string
	// IgnoreDefaultExcludes keeps names matching [DefaultExcludes].
	IgnoreDefaultExcludes bool
	// Exclude drops names matching any of its patterns.
	Exclude []string
	// Set adds or replaces variables.
	Set map[string]string
	// IncludeOnly, if not empty, keeps only names matching one of its
	// patterns (applied last, after Set).
	IncludeOnly []string
}

// ForMCPServer is the policy of a stdio MCP server, as the reference
// client builds it: [MCPBaseVars] and the variables named in envVars that
// are set, then env on top. shell_environment_policy does not apply.
func ForMCPServer(envVars []string, env map[string]string) Policy {
	return Policy{
		Inherit:               InheritNone,
		Names:                 append(MCPBaseVars(), envVars...),
		IgnoreDefaultExcludes: true,
		Set:                   env,
	}
}

// Validate reports a bad inherit value.
func (p Policy) Validate() error {
	switch p.Inherit {
	case "", InheritAll, InheritCore, InheritNone:
	default:
		return fmt.Errorf("inherit = %q: must be \"all\", \"core\" or \"none\"", p.Inherit)
	}
	return nil
}

// Build returns the environment, sorted by name, that p gives a process
// started by an agent whose environment is environ ("NAME=value"
// entries, as [os.Environ]).
func (p Policy) Build(environ []string) []string {
	vars := map[string]string{}
	core := CoreVars()
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		keep := slices.Contains(p.Names, k)
		switch p.Inherit {
		case "", InheritAll:
			keep = true
		case InheritCore:
			keep = keep || slices.Contains(core, k)
		}
		if keep {
			vars[k] = v
		}
	}
	if !p.IgnoreDefaultExcludes {
		dropMatching(vars, DefaultExcludes(), true)
	}
	dropMatching(vars, p.Exclude, true)
	maps.Copy(vars, p.Set)
	if len(p.IncludeOnly) > 0 {
		dropMatching(vars, p.IncludeOnly, false)
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// dropMatching deletes from vars the names that match one of pats (if
// matching) or match none of them (if not).
func dropMatching(vars map[string]string, pats []string, matching bool) {
	if len(pats) == 0 {
		return
	}
	for k := range vars {
		if Match(pats, k) == matching {
			delete(vars, k)
		}
	}
}

// Match reports whether name matches one of the patterns, ignoring case:
// * matches any run of characters, ? any one character, and every other
// character itself.
func Match(patterns []string, name string) bool {
	n := []rune(strings.ToUpper(name))
	for _, pat := range patterns {
		if glob([]rune(strings.ToUpper(pat)), n) {
			return true
		}
	}
	return false
}

// glob matches name against pat, backtracking only to the last *.
func glob(pat, name []rune) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == name[n]):
			p++
			n++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, n
			p++
		case star >= 0:
			mark++
			p, n = star+1, mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}
