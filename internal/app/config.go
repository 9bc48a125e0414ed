package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/agentcli/agent/config"
)

// instructions returns the base instructions and the compaction prompt
// config asks for ("" = the built-in ones): model_instructions_file (or
// experimental_instructions_file) over instructions, and
// experimental_compact_prompt_file over compact_prompt. A relative file
// name is taken in the agent home, where config.toml is.
func instructions(cfg config.Config, home string) (base, compact string, err error) {
	read := func(key, name string) (string, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(home, name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return "", fmt.Errorf("config: %s: %w", key, err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", fmt.Errorf("config: %s: %s is empty", key, name)
		}
		return string(b), nil
	}
	base, compact = cfg.Instructions, cfg.CompactPrompt
	if f := cfg.ModelInstructionsFile; f != "" {
		if base, err = read("model_instructions_file", f); err != nil {
			return "", "", err
		}
	}
	if f := cfg.ExperimentalCompactPromptFile; f != "" {
		if compact, err = read("experimental_compact_prompt_file", f); err != nil {
			return "", "", err
		}
	}
	return base, compact, nil
}

// LoadConfig loads the configuration of home with the global flags and
// prints its warnings (the Codex keys agent ignores) on stderr, one line
// each. Its error is a usage error.
func LoadConfig(stderr io.Writer, home string, f Flags) (config.Config, error) {
	cfg, err := config.Load(f.ConfigOptions(home))
	if err != nil {
		return config.Config{}, usageError(err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "agent: warning: %s\n", w)
	}
	return cfg, nil
}

// NewSessionID returns a new session id (a UUIDv7: ids sort by time).
func NewSessionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
