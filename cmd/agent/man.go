package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/internal/companion"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mantree"
)

// newManCmd is `agent man DIR`: the man pages of every command, generated
// from the commands themselves (so they cannot drift from --help) by
// agent-man, the companion program that links cobra/doc (agent does not:
// internal/mantree says why).
func newManCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the man pages (agent.1, agent-exec.1, ...) into DIR",
		Long: `Write one man page per command into DIR (created if missing), generated
from the commands' own help. Read one with man -l DIR/agent.1, or install
them under a MANPATH directory's man1/. The pages are written by agent-man,
installed beside agent (make install does).`,
		Example: "  agent man man/man1 && man -l man/man1/agent.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := notACommand(cmd.Root(), dir); err != nil {
				return &exitcode.Error{Code: exitcode.Usage, Err: err}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			if err := writeManPages(env, cmd.Root(), dir); err != nil {
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

// notACommand refuses a DIR that is the name of one of root's commands
// and no directory (agent man exec): the user asked for one command's
// page, and would have found every page in a new ./exec.
func notACommand(root *cobra.Command, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil // an existing directory (or a file, refused below) is meant
	}
	for _, c := range root.Commands() {
		if c.Name() == dir || c.HasAlias(dir) {
			return fmt.Errorf("%q is a command, not a directory: agent man DIR writes every command's page into DIR "+
				"(then man -l DIR/agent-%s.1 shows %s's); to write them into a new directory called %s, say ./%s",
				dir, c.Name(), c.Name(), dir, dir)
		}
	}
	return nil
}

// writeManPages runs agent-man on root's command tree.
func writeManPages(env Env, root *cobra.Command, dir string) error {
	self, _ := os.Executable()
	prog, err := companion.Find(self, mantree.ProgramName)
	if err != nil {
		return err
	}
	root.DisableAutoGenTag = true // the pages stay the same from build to build
	tree, err := json.Marshal(mantree.Pages{Title: "AGENT", Section: "1", Source: "agent " + version,
		Manual: "agent manual", Root: mantree.FromCobra(root)})
	if err != nil {
		return err
	}
	c := exec.Command(prog, dir)
	if env.Environ != nil {
		c.Env = env.Environ()
	}
	var stderr bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(tree), env.Stderr, &stderr
	if err := c.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %w", mantree.ProgramName, err)
	}
	return nil
}
