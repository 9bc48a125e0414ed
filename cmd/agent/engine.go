package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentcli/agent/agentsmd"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
	"github.com/agentcli/agent/transport"
)

// workspace is where a session works and under which rules.
type workspace struct {
	cwd     string
	policy  string // approval policy
	sandbox sandbox.Policy
	shell   string
}

// newWorkspace resolves the working directory, the approval policy and the
// sandbox policy from config and flags.
func newWorkspace(cfg config.Config, cwd, sandboxMode, approval string, getenv func(string) string) (workspace, error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return workspace{}, err
		}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return workspace{}, err
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return workspace{}, fmt.Errorf("working directory %s: not a directory", cwd)
	}
	if sandboxMode == "" {
		sandboxMode = cfg.SandboxMode
	}
	if sandboxMode == "" {
		sandboxMode = string(sandbox.ReadOnly)
	}
	mode, err := sandbox.ParseMode(sandboxMode)
	if err != nil {
		return workspace{}, err
	}
	if approval == "" {
		approval = cfg.ApprovalPolicy
	}
	shell := getenv("SHELL")
	if shell == "" {
		shell = "/bin/bash"
	}
	ww := cfg.SandboxWorkspaceWrite
	return workspace{
		cwd:    cwd,
		policy: approval,
		shell:  shell,
		sandbox: sandbox.Policy{
			Mode: mode, Workspace: cwd, WritableRoots: ww.WritableRoots, NetworkAccess: ww.NetworkAccess,
			ExcludeTmpdirEnvVar: ww.ExcludeTmpdirEnvVar, ExcludeSlashTmp: ww.ExcludeSlashTmp,
		},
	}, nil
}

// tools builds the session's tools: commands run under the sandbox,
// approved escalations outside it.
func (w workspace) tools() (*tools.Set, error) {
	pol := w.sandbox
	ex := tools.NewExec(tools.ExecOptions{
		Cwd:     w.cwd,
		Shell:   w.shell,
		Policy:  w.policy,
		Sandbox: string(pol.Mode),
		Command: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c, err := sandbox.Command(ctx, pol, argv[0], argv[1:]...)
			if err != nil {
				return nil, err
			}
			c.Dir = dir
			return c, nil
		},
		Unsandboxed: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir = dir
			return c, nil
		},
		Denied: func(waitErr error, output []byte) bool { return sandbox.Denied(pol, waitErr, output) },
	})
	roots := append([]string{w.cwd}, pol.WritableRoots...)
	return tools.NewSet(ex, tools.NewWriteStdin(ex),
		tools.NewApplyPatch(tools.PatchOptions{Cwd: w.cwd, WritableRoots: roots, Policy: w.policy, Sandbox: string(pol.Mode)}),
		tools.Plan{})
}

// context builds the messages recorded before the first user message:
// the environment, then AGENTS.md instructions when there are any.
func (w workspace) context(cfg config.Config, home string, now time.Time) ([]transport.Item, error) {
	items := []transport.Item{session.EnvironmentContext(session.Environment{
		Cwd: w.cwd, Shell: w.shell, ApprovalPolicy: w.policy, SandboxMode: string(w.sandbox.Mode),
		NetworkAccess: w.sandbox.NetworkAccess, WritableRoots: w.sandbox.WritableRoots, Now: now,
	})}
	doc, err := agentsmd.Discover(w.cwd, agentsmd.Options{
		Home: home, MaxBytes: int(cfg.ProjectDocMaxBytes), RootMarkers: cfg.ProjectRootMarkers,
		Fallbacks: cfg.ProjectDocFallbackFilenames,
	})
	if err != nil {
		return nil, fmt.Errorf("read AGENTS.md: %w", err)
	}
	if doc.Text != "" {
		items = append(items, transport.UserMessage(doc.Message(w.cwd)))
	}
	return items, nil
}
