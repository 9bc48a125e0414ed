package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// Where a [Home] came from.
const (
	HomeFromAgentEnv = "AGENT_HOME" // $AGENT_HOME
	HomeAgentDefault = "~/.agent"   // ~/.agent, which exists or nothing else does
	HomeFromCodexEnv = "CODEX_HOME" // $CODEX_HOME, no agent home
	HomeCodexDefault = "~/.codex"   // ~/.codex, no agent home
)

// Home is the directory agent reads the user's setup from (config.toml,
// auth.json, prompts/, AGENTS.md, sessions/) and writes its own state in.
type Home struct {
	// Dir is the directory, absolute.
	Dir string
	// From says how it was chosen: one of the Home* constants.
	From string
}

// FindHome picks the home, in this order: $AGENT_HOME; ~/.agent when it
// exists; Codex's home ($CODEX_HOME, else ~/.codex when it exists), so a
// Codex user's setup works without being moved; else ~/.agent (a fresh
// install). getenv reads the environment (HOME included); it is the one
// place agent decides this.
func FindHome(getenv func(string) string) (Home, error) {
	if h := getenv("AGENT_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		return Home{Dir: abs, From: HomeFromAgentEnv}, err
	}
	user := getenv("HOME")
	if user == "" {
		var err error
		if user, err = os.UserHomeDir(); err != nil {
			return Home{}, fmt.Errorf("cannot find the home directory (set AGENT_HOME): %w", err)
		}
	}
	agent := Home{Dir: filepath.Join(user, ".agent"), From: HomeAgentDefault}
	if isDir(agent.Dir) {
		return agent, nil
	}
	if h := getenv("CODEX_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		return Home{Dir: abs, From: HomeFromCodexEnv}, err
	}
	if codex := filepath.Join(user, ".codex"); isDir(codex) {
		return Home{Dir: codex, From: HomeCodexDefault}, nil
	}
	return agent, nil
}

// isDir says whether dir is an existing directory.
func isDir(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// Codex says whether the home is Codex's.
func (h Home) Codex() bool { return h.From == HomeFromCodexEnv || h.From == HomeCodexDefault }

// Prompts is the directory of the custom prompts (/prompts:NAME).
func (h Home) Prompts() string { return filepath.Join(h.Dir, "prompts") }

// Describe is one line naming the home, how it was chosen and how to
// choose another: what agent says on stderr, in /status and in agent
// doctor.
func (h Home) Describe() string {
	switch h.From {
	case HomeFromCodexEnv, HomeCodexDefault:
		return fmt.Sprintf("using Codex's home %s (%s): its config.toml, auth.json, prompts/, AGENTS.md and sessions/; set AGENT_HOME or create ~/.agent to use another", h.Dir, h.From)
	case HomeFromAgentEnv:
		return fmt.Sprintf("home: %s (AGENT_HOME)", h.Dir)
	}
	return fmt.Sprintf("home: %s (the default; set AGENT_HOME to use another)", h.Dir)
}
