package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/tools/sandbox"
)

// sandboxFlags are agent sandbox's own flags.
type sandboxFlags struct {
	mode          string
	writable      []string
	network       bool
	excludeTmpdir bool
	excludeTmp    bool
	bestEffort    bool
}

// newSandboxCmd builds `agent sandbox`, which runs any command under the
// sandbox the agent's own commands get. The global flags (model, profile,
// config overrides) do not apply to it.
func newSandboxCmd(ctx context.Context, env Env, _ *globalFlags) *cobra.Command {
	f := &sandboxFlags{}
	cmd := &cobra.Command{
		Use:   "sandbox [flags] -- COMMAND [ARG...]",
		Short: "Run a command under the agent's sandbox to see what a policy allows",
		Long: `Run COMMAND under the sandbox the agent uses for its own commands, in the
current directory (the workspace). Its standard streams, exit status and
signals pass through.

Modes: read-only (default) reads everything and changes nothing, file
modes, owners and times included; workspace-write also writes the current
directory, each --writable DIR, $TMPDIR and /tmp, but keeps their .git and
$AGENT_HOME read-only; danger-full-access runs the command unsandboxed.
The network, UNIX sockets included, is off in both restricted modes unless
--network. A sandboxed command runs in a new session, without the
terminal as its controlling terminal, and cannot push input into it.

On Linux the sandbox is Landlock, mount and network namespaces and a
seccomp filter. When
the kernel cannot enforce the policy, agent sandbox refuses to run the
command and exits 125, unless --best-effort. It also exits 125 when the
sandbox could not be set up; otherwise it exits with COMMAND's status
(128+N when a signal N killed it).`,
		Example: `  agent sandbox -- ls ~
  agent sandbox --mode workspace-write -- sh -c 'echo hi > f && echo no > .git/x'
  agent sandbox --network -- curl -sI https://example.com`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSandbox(ctx, env, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // flags after COMMAND belong to it
	fl.StringVar(&f.mode, "mode", string(sandbox.ReadOnly), "sandbox mode: read-only, workspace-write or danger-full-access")
	fl.StringArrayVar(&f.writable, "writable", nil, "make DIR writable too (workspace-write); repeatable")
	fl.BoolVar(&f.network, "network", false, "leave the network on")
	fl.BoolVar(&f.excludeTmpdir, "exclude-tmpdir-env-var", false, "keep $TMPDIR read-only (workspace-write)")
	fl.BoolVar(&f.excludeTmp, "exclude-slash-tmp", false, "keep /tmp read-only (workspace-write)")
	fl.BoolVar(&f.bestEffort, "best-effort", false, "run with what the kernel can enforce instead of refusing")
	return cmd
}

// runSandbox runs args under the policy f describes.
func runSandbox(ctx context.Context, env Env, f *sandboxFlags, args []string) error {
	mode, err := sandbox.ParseMode(f.mode)
	if err != nil {
		return usageError(fmt.Errorf("--mode: %w", err))
	}
	if mode != sandbox.WorkspaceWrite && (len(f.writable) > 0 || f.excludeTmpdir || f.excludeTmp) {
		return usageError(errors.New("--writable, --exclude-tmpdir-env-var and --exclude-slash-tmp need --mode workspace-write"))
	}
	ws, err := os.Getwd()
	if err != nil {
		return &exitcode.Error{Code: sandbox.ExitHelperFailed, Err: err}
	}
	p := sandbox.Policy{
		Mode:                mode,
		Workspace:           ws,
		WritableRoots:       f.writable,
		NetworkAccess:       f.network,
		ExcludeTmpdirEnvVar: f.excludeTmpdir,
		ExcludeSlashTmp:     f.excludeTmp,
		BestEffort:          f.bestEffort,
	}
	if home, err := config.FindHome(env.Getenv); err == nil {
		// As for the agent's own commands: unreadable, hence unwritable.
		p.ReadOnlyPaths, p.HiddenPaths = []string{home.Dir}, []string{home.Dir}
	}
	code, err := sandbox.Run(ctx, p, args, env.Stdin, env.Stdout, env.Stderr)
	if err != nil {
		return &exitcode.Error{Code: code, Err: err}
	}
	return nil
}
