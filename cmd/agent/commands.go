package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// checkCommandWord refuses a first argument that is a command agent does
// not have rather than a prompt: a subcommand of Codex 0.169 that agent
// lacks, or a word one typing slip away from one of agent's commands.
// Both are usage errors, before any request. A prompt is never taken for
// a command when it has a space in it, comes after -- (atDash, cobra's
// ArgsLenAtDash, is 0), or is given to agent exec.
func checkCommandWord(root *cobra.Command, args []string, atDash int) error {
	if len(args) == 0 || atDash == 0 {
		return nil
	}
	word := args[0]
	if !commandShaped(word) {
		return nil
	}
	if hint, ok := codexOnlyCommand(word); ok {
		return usageError(fmt.Errorf("agent has no %q command (Codex has; %s); to send the word as a prompt: agent -- %s", word, hint, word))
	}
	if name := nearestCommand(root, word); name != "" {
		return usageError(fmt.Errorf("unknown command %q: did you mean %q? (to send the word as a prompt: agent -- %s)", word, name, word))
	}
	return nil
}

// commandShaped says whether word could be a command name: lower-case
// letters and hyphens only, at least three of them.
func commandShaped(word string) bool {
	if len(word) < 3 {
		return false
	}
	for _, r := range word {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}

// codexOnlyCommand returns what to use instead of a Codex 0.169
// subcommand agent does not have, and whether word is one.
func codexOnlyCommand(word string) (hint string, ok bool) {
	if strings.HasPrefix(word, "migrate-") {
		return "agent reads Codex's rollouts and config as they are, nothing to migrate", true
	}
	switch word {
	case "apply":
		return "agent has no Codex Cloud tasks; its patches are applied to your files as it works", true
	case "cloud":
		return "agent has no Codex Cloud tasks; run the task locally with agent exec", true
	case "remote-control", "exec-server":
		return "to drive agent from a program use agent app-server (Codex's clients) or agent exec --json (the Codex SDK runs it unchanged)", true
	case "plugin":
		return "agent has no plugins; add tools with agent mcp add", true
	case "queue":
		return "run many prompts with agent exec --batch FILE", true
	case "archive", "unarchive", "delete":
		return "sessions are files under the home's sessions/ directory; agent resume --all lists them", true
	case "features":
		return "set features.NAME in config.toml, or use --enable/--disable NAME", true
	case "update":
		return "update agent the way you installed it", true
	case "debug":
		return "agent doctor checks the set-up and agent sandbox runs a command in the sandbox", true
	case "agents":
		return "agent has no sub-agents", true
	}
	return "", false
}

// nearestCommand returns the command of root (or alias) that word is one
// edit away from (a letter added, dropped, changed, or two swapped), or
// "" when there is none.
func nearestCommand(root *cobra.Command, word string) string {
	for _, c := range root.Commands() {
		for _, name := range append([]string{c.Name()}, c.Aliases...) {
			if name != word && editDistance(word, name) == 1 {
				return name
			}
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b
// (Levenshtein with adjacent transpositions), on bytes.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
