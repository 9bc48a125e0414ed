package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
