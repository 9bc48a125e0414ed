package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/agentsmd"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
	"github.com/agentcli/agent/transport"
)

// Workspace is where a session works and under which rules.
type Workspace struct {
	Cwd     string
	Policy  string // approval policy
	Sandbox sandbox.Policy
	Shell   string
	// Env is the environment of the model's commands, built by
	// [shell_environment_policy].
	Env []string
	// FreeformPatch offers apply_patch as a custom (grammar) tool, for
	// providers that support custom tools.
	FreeformPatch bool
	// OutputTokenLimit is tool_output_token_limit: the budget of one
	// tool output sent to the model.
	OutputTokenLimit int
	// WebSearch is config web_search: cached, live or disabled.
	WebSearch string
	// Headless says no user is there to answer (no approver: exec, batch).
	Headless bool
	// Editor is where patches read and write file texts (an ACP editor's
	// buffers); nil: the disk.
	Editor tools.Editor
}

// newWorkspace resolves the working directory, the approval policy and the
// sandbox policy from config and flags.
func newWorkspace(cfg config.Config, cwd, sandboxMode, approval string, getenv func(string) string, environ []string) (Workspace, error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return Workspace{}, err
		}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return Workspace{}, err
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return Workspace{}, fmt.Errorf("working directory %s: not a directory", cwd)
	}
	defSandbox, defApproval := cfg.WorkspaceDefaults(cwd) // config, else the project's trust
	if sandboxMode == "" {
		sandboxMode = defSandbox
	}
	mode, err := sandbox.ParseMode(sandboxMode)
	if err != nil {
		return Workspace{}, err
	}
	if approval == "" {
		approval = defApproval
	}
	if approval, err = tools.ParsePolicy(approval); err != nil {
		return Workspace{}, err
	}
	shell := getenv("SHELL")
	if shell == "" {
		shell = "/bin/bash"
	}
	ww := cfg.SandboxWorkspaceWrite
	return Workspace{
		Cwd:    cwd,
		Policy: approval,
		Shell:  shell,
		Env:    setup.CommandEnvPolicy(cfg).Build(environ),
		// tool_output_token_limit, capped to fit an int anywhere.
		OutputTokenLimit: int(min(cfg.ToolOutputTokenLimit, 1<<30)),
		WebSearch:        cfg.WebSearch,
		Sandbox: sandbox.Policy{
			Mode: mode, Workspace: cwd, WritableRoots: ww.WritableRoots, NetworkAccess: ww.NetworkAccess,
			ExcludeTmpdirEnvVar: ww.ExcludeTmpdirEnvVar, ExcludeSlashTmp: ww.ExcludeSlashTmp,
			BestEffort: cfg.SandboxFallback == "best-effort",
		},
	}, nil
}

// tools builds the session's tools: commands run under the sandbox,
// approved escalations outside it.
func (w Workspace) tools() (*tools.Set, error) {
	pol := w.Sandbox
	ex := tools.NewExec(tools.ExecOptions{
		Cwd:     w.Cwd,
		Shell:   w.Shell,
		Policy:  w.Policy,
		Sandbox: string(pol.Mode),
		Env:     w.Env,
		Command: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c, err := sandbox.Command(ctx, pol, argv[0], argv[1:]...)
			if err != nil {
				return nil, err
			}
			c.Dir = dir
			return c, nil
		},
		// Approved escalations run as danger-full-access does: under the
		// guard that ends what they started when agent dies.
		Unsandboxed: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c, err := sandbox.Command(ctx, sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: w.Cwd}, argv[0], argv[1:]...)
			if err != nil {
				return nil, err
			}
			c.Dir = dir
			return c, nil
		},
		Denied: func(waitErr error, output []byte) bool { return sandbox.Denied(pol, waitErr, output) },
	})
	roots := append([]string{w.Cwd}, pol.WritableRoots...)
	list := []tools.Tool{ex, tools.NewWriteStdin(ex),
		tools.NewApplyPatch(tools.PatchOptions{Cwd: w.Cwd, WritableRoots: roots, Policy: w.Policy, ReadOnlyPaths: pol.ReadOnlyPaths,
			Sandbox: string(pol.Mode), Freeform: w.FreeformPatch, Editor: w.Editor}),
		tools.Plan{},
		// What the sandbox hides (the agent home, with the credentials) the
		// model cannot view either.
		tools.NewViewImage(tools.ViewImageOptions{Cwd: w.Cwd, Unreadable: pol.HiddenPaths}),
		tools.RequestUserInput{Headless: w.Headless},
	}
	if w.Editor != nil {
		// An editor holds the files (ACP): the model reads them as it has
		// them, unsaved changes included.
		list = append(list, tools.NewReadFile(tools.ReadFileOptions{Cwd: w.Cwd, Unreadable: pol.HiddenPaths, Editor: w.Editor}))
	}
	if w.WebSearch != "disabled" {
		list = append(list, tools.WebSearch{Live: w.WebSearch == "live"})
	}
	set, err := tools.NewSet(list...)
	if err != nil {
		return nil, err
	}
	set.LimitOutput(w.OutputTokenLimit)
	return set, nil
}

// environment is the <environment_context> message telling the model
// where it works and under which rules.
func (w Workspace) environment(now time.Time) transport.Item {
	return session.EnvironmentContext(session.Environment{
		Cwd: w.Cwd, Shell: w.Shell, ApprovalPolicy: w.Policy, SandboxMode: string(w.Sandbox.Mode),
		NetworkAccess: w.Sandbox.NetworkAccess, WritableRoots: w.Sandbox.WritableRoots, Now: now,
	})
}

// context builds the messages recorded before the first user message:
// developer_instructions as a developer message (as Codex sends them), the
// environment, then AGENTS.md instructions when there are any.
func (w Workspace) context(cfg config.Config, home string, now time.Time) ([]transport.Item, error) {
	var items []transport.Item
	if d := cfg.DeveloperInstructions; d != "" {
		items = append(items, transport.DeveloperMessage(d))
	}
	items = append(items, w.environment(now))
	doc, err := agentsmd.Discover(w.Cwd, agentsmd.Options{
		Home: home, MaxBytes: int(cfg.ProjectDocMaxBytes), RootMarkers: cfg.ProjectRootMarkers,
		Fallbacks: cfg.ProjectDocFallbackFilenames,
	})
	if err != nil {
		return nil, fmt.Errorf("read AGENTS.md: %w", err)
	}
	if doc.Text != "" {
		items = append(items, transport.UserMessage(doc.Message(w.Cwd)))
	}
	return items, nil
}
