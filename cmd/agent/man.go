package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/agentcli/agent/headless/exitcode"
)

// newManCmd is `agent man DIR`: the man pages of every command, generated
// from the commands themselves (so they cannot drift from --help).
func newManCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the man pages (agent.1, agent-exec.1, ...) into DIR",
		Long: `Write one man page per command into DIR (created if missing), generated
from the commands' own help. Read one with man -l DIR/agent.1, or install
them under a MANPATH directory's man1/.`,
		Example: "  agent man man/man1 && man -l man/man1/agent.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // the pages stay the same from build to build
			hdr := &doc.GenManHeader{Title: "AGENT", Section: "1", Source: "agent " + version, Manual: "agent manual"}
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("man pages: %w", err)}
			}
			if _, err := os.Stat(dir + "/agent.1"); err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: errors.New("man pages: agent.1 was not written")}
			}
			fmt.Fprintf(env.Stdout, "wrote the man pages into %s\n", dir)
			return nil
		},
	}
}
