// Package mantree carries agent's command tree to agent-man, the
// companion program that writes agent's man pages with cobra/doc. agent
// man DIR sends the tree (a [Pages] value, JSON on agent-man's standard
// input); agent-man rebuilds the cobra commands with [Command.Cobra] and
// runs doc.GenManTree. cobra/doc links go-md2man and blackfriday, whose
// package init (214 KB of allocations, its entity table and regexps) every
// agent process would pay, agent exec included, for a command run once at
// install time: +0.4 MiB of peak RSS on a one-turn exec (BENCHMARKS.md),
// so agent links neither (internal/archtest's TestAgentLinksNoManWriter).
//
// The tree keeps what cobra/doc reads: each available command's use line,
// descriptions, example and flags (local and persistent, with the type
// name, default and no-option default cobra/doc prints); hidden,
// deprecated and help commands are left out, as cobra/doc leaves them.
package mantree

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentcli/agent/internal/companion"
)

// ProgramName is the man page writer's program, installed beside agent.
const ProgramName = companion.Man

// Pages is what agent sends agent-man: the man pages' header and the
// command tree from the root.
type Pages struct {
	Title   string  `json:"title"`
	Section string  `json:"section"`
	Source  string  `json:"source"`
	Manual  string  `json:"manual"`
	Root    Command `json:"root"`
}

// Command is one command of the tree.
type Command struct {
	Use                   string            `json:"use"`
	Short                 string            `json:"short,omitempty"`
	Long                  string            `json:"long,omitempty"`
	Example               string            `json:"example,omitempty"`
	Annotations           map[string]string `json:"annotations,omitempty"`
	Runnable              bool              `json:"runnable,omitempty"`
	DisableFlagsInUseLine bool              `json:"disable_flags_in_use_line,omitempty"`
	DisableAutoGenTag     bool              `json:"disable_auto_gen_tag,omitempty"`
	// Flags are the command's own flags; Persistent those its
	// subcommands inherit.
	Flags      []Flag    `json:"flags,omitempty"`
	Persistent []Flag    `json:"persistent,omitempty"`
	Commands   []Command `json:"commands,omitempty"`
}

// Flag is one flag as cobra/doc prints it.
type Flag struct {
	Name                string `json:"name"`
	Shorthand           string `json:"shorthand,omitempty"`
	Usage               string `json:"usage,omitempty"`
	Type                string `json:"type"`
	DefValue            string `json:"default,omitempty"`
	NoOptDefVal         string `json:"no_opt_default,omitempty"`
	ShorthandDeprecated string `json:"shorthand_deprecated,omitempty"`
	// Hidden and deprecated flags are sent so that a command whose only
	// flags they are keeps its use line ("[flags]" counts available ones).
	Hidden     bool   `json:"hidden,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
}

// FromCobra is the tree under c as cobra/doc would see it.
func FromCobra(c *cobra.Command) Command {
	out := Command{
		Use: c.Use, Short: c.Short, Long: c.Long, Example: c.Example, Annotations: c.Annotations,
		Runnable: c.Runnable(), DisableFlagsInUseLine: c.DisableFlagsInUseLine, DisableAutoGenTag: c.DisableAutoGenTag,
		Flags: flagsOf(c.LocalNonPersistentFlags()), Persistent: flagsOf(c.PersistentFlags()),
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out.Commands = append(out.Commands, FromCobra(sub))
		}
	}
	return out
}

func flagsOf(fs *pflag.FlagSet) []Flag {
	var out []Flag
	fs.VisitAll(func(f *pflag.Flag) {
		out = append(out, Flag{Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage, Type: f.Value.Type(),
			DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal, ShorthandDeprecated: f.ShorthandDeprecated,
			Hidden: f.Hidden, Deprecated: f.Deprecated})
	})
	return out
}

// Cobra rebuilds the tree as cobra commands for cobra/doc: runnable
// commands run nothing, flags parse nothing.
func (c Command) Cobra() *cobra.Command {
	out := &cobra.Command{
		Use: c.Use, Short: c.Short, Long: c.Long, Example: c.Example, Annotations: c.Annotations,
		DisableFlagsInUseLine: c.DisableFlagsInUseLine, DisableAutoGenTag: c.DisableAutoGenTag,
	}
	if c.Runnable {
		out.Run = func(*cobra.Command, []string) {}
	}
	addFlags(out.Flags(), c.Flags)
	addFlags(out.PersistentFlags(), c.Persistent)
	for _, sub := range c.Commands {
		out.AddCommand(sub.Cobra())
	}
	return out
}

func addFlags(fs *pflag.FlagSet, flags []Flag) {
	for _, f := range flags {
		fs.AddFlag(&pflag.Flag{Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage, Value: value{f},
			DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal, ShorthandDeprecated: f.ShorthandDeprecated,
			Hidden: f.Hidden, Deprecated: f.Deprecated})
	}
}

// value is a flag's value as cobra/doc reads it: its type's name and its
// default.
type value struct{ f Flag }

func (v value) String() string   { return v.f.DefValue }
func (v value) Set(string) error { return nil }
func (v value) Type() string     { return v.f.Type }
