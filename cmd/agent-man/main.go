// Command agent-man writes agent's man pages. agent man DIR starts it
// with agent's command tree on standard input (package mantree's JSON)
// and DIR as its argument; it rebuilds the commands and writes one page
// per command into DIR with cobra/doc. It is a program of its own so that
// agent links neither cobra/doc nor go-md2man and blackfriday, whose
// start-up every agent process would pay (internal/mantree).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra/doc"

	"github.com/agentcli/agent/internal/mantree"
)

func main() {
	if err := run(os.Args[1:], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, mantree.ProgramName+":", err)
		os.Exit(1)
	}
}

// run writes the pages of the tree read from in into the directory args
// names.
func run(args []string, in io.Reader) error {
	if len(args) != 1 || args[0] == "" {
		return errors.New("usage: agent-man DIR, with agent's command tree on standard input (agent man DIR runs it)")
	}
	var p mantree.Pages
	if err := json.NewDecoder(in).Decode(&p); err != nil {
		return fmt.Errorf("reading the command tree on standard input: %w", err)
	}
	if p.Root.Use == "" {
		return errors.New("the command tree on standard input has no root command")
	}
	hdr := &doc.GenManHeader{Title: p.Title, Section: p.Section, Source: p.Source, Manual: p.Manual}
	return doc.GenManTree(p.Root.Cobra(), hdr, args[0])
}
