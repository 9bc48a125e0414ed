package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
)

// codexFlags are the flags of the reference client (Codex CLI 0.169's
// `codex --help` and `codex exec --help`) that agent gives Codex's meaning,
// so scripts and the Codex SDK run unchanged. Flags whose behaviour agent
// does not have are registered by addIgnoredFlags instead.
type codexFlags struct {
	addDirs   []string // --add-dir: extra writable roots
	fullAuto  bool     // --full-auto: workspace-write sandbox (on-request approvals in the chat)
	bypass    bool     // --dangerously-bypass-approvals-and-sandbox: no sandbox, never ask
	enable    []string // --enable FEATURE: -c features.FEATURE=true
	disable   []string // --disable FEATURE: -c features.FEATURE=false
	oss       bool     // --oss: the local open-source provider
	localProv string   // --local-provider: which one (ollama or lmstudio)
	color     string   // --color: always, never or auto
}

// ossDefaultModel is the model --oss uses when -m does not name one, as in
// the reference client.
const ossDefaultModel = "gpt-oss:20b"

func (c *codexFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.addDirs, "add-dir", nil, "an additional directory that is writable alongside the workspace (repeatable)")
	fs.BoolVar(&c.fullAuto, "full-auto", false, "low-friction automatic mode: the workspace-write sandbox (and on-request approvals in the chat)")
	fs.BoolVar(&c.bypass, "dangerously-bypass-approvals-and-sandbox", false, "never ask for approval and run commands without a sandbox; only for environments that are sandboxed already")
	fs.BoolVar(&c.bypass, "yolo", false, "alias of --dangerously-bypass-approvals-and-sandbox")
	_ = fs.MarkHidden("yolo")
	fs.StringArrayVar(&c.enable, "enable", nil, "enable a feature (repeatable): the same as -c features.FEATURE=true")
	fs.StringArrayVar(&c.disable, "disable", nil, "disable a feature (repeatable): the same as -c features.FEATURE=false")
	fs.BoolVar(&c.oss, "oss", false, "use the local open-source provider (--local-provider, default ollama)")
	fs.StringVar(&c.localProv, "local-provider", "", "the local provider for --oss: ollama or lmstudio")
	fs.StringVar(&c.color, "color", "auto", "colour in the output: always, never or auto (agent exec writes plain text either way)")
	fs.Bool("strict-config", false, "error out on unknown config keys (agent always does)")
}

// apply folds the flags into the global flags (config overrides, model)
// and the sandbox and approval choices; sandboxMode and approval may be
// nil where a command has no such choice. It reports bad values.
func (c *codexFlags) apply(g *globalFlags, sandboxMode, approval *string) error {
	switch c.color {
	case "always", "never", "auto":
	default:
		return fmt.Errorf("--color %q: want always, never or auto", c.color)
	}
	for _, f := range c.enable {
		g.overrides = append(g.overrides, "features."+f+"=true")
	}
	for _, f := range c.disable {
		g.overrides = append(g.overrides, "features."+f+"=false")
	}
	if c.localProv != "" && c.localProv != "ollama" && c.localProv != "lmstudio" {
		return fmt.Errorf("--local-provider %q: want ollama or lmstudio", c.localProv)
	}
	if c.oss {
		p := c.localProv
		if p == "" {
			p = "ollama"
		}
		g.overrides = append(g.overrides, "model_provider="+p)
		if g.model == "" {
			g.model = ossDefaultModel
		}
	}
	if c.bypass && c.fullAuto {
		return fmt.Errorf("--full-auto and --dangerously-bypass-approvals-and-sandbox cannot be used together")
	}
	switch {
	case c.bypass:
		if sandboxMode != nil {
			*sandboxMode = string(sandbox.DangerFullAccess)
		}
		if approval != nil {
			*approval = tools.PolicyNever
		}
	case c.fullAuto:
		if sandboxMode != nil {
			*sandboxMode = string(sandbox.WorkspaceWrite)
		}
		if approval != nil {
			*approval = tools.PolicyOnRequest
		}
	}
	return nil
}

// writableRoots returns the --add-dir directories as absolute paths.
func (c *codexFlags) writableRoots() ([]string, error) {
	var out []string
	for _, d := range c.addDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--add-dir %s: %w", d, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// ignoredAnnotation marks a flag accepted for compatibility whose
// behaviour agent does not have; its value is the reason shown.
const ignoredAnnotation = "agent-ignored"

// ignoredFlag is a reference-client flag agent accepts and ignores.
type ignoredFlag struct {
	name, shorthand string
	value           bool // takes a value
	why             string
}

// Reference-client flags agent accepts but does not act on, by command.
var (
	ignoredCommonFlags = []ignoredFlag{
		{name: "approve-for-me", why: "agent has no automatic approval reviewer"},
		{name: "worktree", why: "agent does not create git worktrees"},
	}
	ignoredExecFlags = []ignoredFlag{
		{name: "thread-source", value: true, why: "agent does not classify sessions by source"},
		{name: "cyber-access-program", value: true, why: "agent has no access programs"},
		{name: "trust", why: "agent does not record project trust"},
		{name: "ignore-rules", why: "agent has no execpolicy .rules files"},
	}
	ignoredChatFlags = []ignoredFlag{
		{name: "no-daemon", why: "agent has no background server"},
		{name: "include-non-interactive", why: "agent's session picker lists every session"},
	}
)

// addIgnoredFlags registers flags that are accepted, with a warning when
// used (warnIgnored), and do nothing.
func addIgnoredFlags(fs *pflag.FlagSet, flags []ignoredFlag) {
	for _, f := range flags {
		if fs.Lookup(f.name) != nil {
			continue
		}
		usage := "accepted for compatibility with Codex and ignored: " + f.why
		if f.value {
			fs.StringP(f.name, f.shorthand, "", usage)
		} else {
			fs.BoolP(f.name, f.shorthand, false, usage)
		}
		_ = fs.SetAnnotation(f.name, ignoredAnnotation, []string{f.why})
	}
}

// warnIgnored prints one line for each ignored flag the command was given,
// and for --color always, which agent cannot honour (its output has no
// colour).
func warnIgnored(cmd *cobra.Command, w io.Writer) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if why := f.Annotations[ignoredAnnotation]; len(why) > 0 {
			fmt.Fprintf(w, "agent: warning: --%s is accepted for compatibility with Codex and ignored (%s)\n", f.Name, strings.Join(why, ""))
		}
		if f.Name == "color" && f.Value.String() == "always" {
			fmt.Fprintln(w, "agent: warning: --color always is accepted for compatibility with Codex and ignored (agent's output has no colour)")
		}
	})
}
