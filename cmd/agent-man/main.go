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
	"strings"

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
	literal(&p.Root)
	return doc.GenManTree(p.Root.Cobra(), hdr, args[0])
}

// markdown escapes the characters Markdown would read as markup: cobra/doc
// renders descriptions and flag usages as Markdown (go-md2man), which
// dropped "<stdin>" as an HTML tag and read the underscores of
// "mcp__<server>__<tool>" as emphasis. agent's help is plain text: the
// pages say what --help says.
var markdown = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`)

// literal makes c's texts and those of its subcommands and flags read as
// plain text in the pages (examples are code blocks already).
func literal(c *mantree.Command) {
	c.Short, c.Long = markdown.Replace(c.Short), markdown.Replace(c.Long)
	for i := range c.Flags {
		c.Flags[i].Usage = markdown.Replace(c.Flags[i].Usage)
	}
	for i := range c.Persistent {
		c.Persistent[i].Usage = markdown.Replace(c.Persistent[i].Usage)
	}
	for i := range c.Commands {
		literal(&c.Commands[i])
	}
}
