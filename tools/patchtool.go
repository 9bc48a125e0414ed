package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/agentcli/agent/internal/jsonstring"
	"github.com/agentcli/agent/tools/patch"
)

// Editor is where patches read and write file texts instead of the disk:
// an ACP editor's buffers ([patch.Editor]).
type Editor = patch.Editor

// PatchOptions configure the apply_patch tool.
type PatchOptions struct {
	// Cwd is the root patches apply to (required).
	Cwd string
	// WritableRoots are where the sandbox lets patches write without
	// asking; empty with sandbox workspace-write means Cwd alone.
	WritableRoots []string
	// Policy and Sandbox select the approval rules.
	Policy, Sandbox string
	// ReadOnlyPaths are never written outside danger-full-access, not even
	// with approval: the agent's home ($AGENT_HOME, with its config,
	// credentials and sessions) belongs here, as it does in the sandbox
	// of commands. A patch touching one is refused whole.
	ReadOnlyPaths []string
	// Freeform offers the custom (grammar) form of the tool instead of the
	// function form, for providers that support custom tools.
	Freeform bool
	// Editor, if set, is where patches read and write file texts (an ACP
	// editor's buffers); the approval rules and the writable roots hold
	// the same.
	Editor Editor
}

// ApplyPatch is the apply_patch tool.
type ApplyPatch struct{ opts PatchOptions }

var _ Tool = (*ApplyPatch)(nil)

// NewApplyPatch returns the apply_patch tool.
func NewApplyPatch(opts PatchOptions) *ApplyPatch { return &ApplyPatch{opts: opts} }

// Name implements [Tool].
func (a *ApplyPatch) Name() string { return patch.ToolName }

// ParallelSafe implements [Tool]: patches write files.
func (a *ApplyPatch) ParallelSafe() bool { return false }

// Spec implements [Tool].
func (a *ApplyPatch) Spec() json.RawMessage {
	if a.opts.Freeform {
		return patch.FreeformSpec()
	}
	return patch.FunctionSpec()
}

// writable reports whether the sandbox lets the patch write path.
func (a *ApplyPatch) writable(path string) bool {
	switch a.opts.Sandbox {
	case SandboxFullAccess:
		return true
	case SandboxReadOnly:
		return false
	}
	roots := a.opts.WritableRoots
	if len(roots) == 0 {
		roots = []string{a.opts.Cwd}
	}
	for _, r := range roots {
		rel, err := filepath.Rel(r, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// .git stays read-only inside writable roots.
			if rel == ".git" || strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
				return false
			}
			return true
		}
	}
	return false
}

// protected returns the entry of ReadOnlyPaths that abs (symbolic links
// resolved) lies in, or "" when none does or the sandbox is off.
func (a *ApplyPatch) protected(abs string) string {
	if a.opts.Sandbox == SandboxFullAccess {
		return ""
	}
	for _, p := range a.opts.ReadOnlyPaths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			real = filepath.Clean(p)
		}
		if rel, err := filepath.Rel(real, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return p
		}
	}
	return ""
}

// Run implements [Tool].
func (a *ApplyPatch) Run(ctx context.Context, inv *Invocation) Result {
	text := inv.Call.Input
	if !inv.Call.Custom {
		var args struct {
			Input jsonstring.String `json:"input"` // a 10 MiB patch: one copy
		}
		if err := decodeArgs(inv.Call, &args); err != nil {
			return Result{Output: err.Error(), Status: StatusFailed}
		}
		text = string(args.Input)
	}
	p, err := patch.Parse(text)
	if err != nil {
		return Result{Output: "apply_patch: " + err.Error(), Status: StatusFailed}
	}
	root, p := patch.Rooted(p, a.opts.Cwd) // "/" for a patch naming files outside the workspace
	// A dry run finds what the patch touches and whether it applies at all,
	// before anyone is asked to approve it.
	outside := false
	var protected, protectedFile string
	preview, err := patch.Preview(ctx, root, p, patch.Options{Editor: a.opts.Editor, Writable: func(abs string) bool {
		if !a.writable(abs) {
			outside = true
		}
		if dir := a.protected(abs); dir != "" && protected == "" {
			protected, protectedFile = dir, abs
		}
		return true
	}})
	if err != nil {
		return Result{Output: "apply_patch: " + err.Error(), Status: StatusFailed}
	}
	if protected != "" {
		return Result{Output: "apply_patch: refusing to write " + protectedFile + ": it is in the agent's home (" + protected +
			"), which holds its config, credentials and sessions and is read-only to the model's tools; no files were changed",
			Status: StatusDeclined}
	}
	req := ApprovalRequest{CallID: inv.Call.ID, Kind: "patch", Files: p.Paths(), Diff: preview.Diff(),
		Workdir: a.opts.Cwd, Escalated: outside}
	policy := inv.PolicyOr(a.opts.Policy)
	if outside && policy == PolicyNever {
		return Result{Output: "apply_patch: the patch writes outside the writable roots of the sandbox (" +
			a.opts.Sandbox + "), and the approval policy \"never\" cannot allow it; no files were changed", Status: StatusDeclined}
	}
	if NeedsApproval(policy, a.opts.Sandbox, req) {
		d := inv.Approve(ctx, req)
		switch d.Kind {
		case Deny:
			return Result{Output: declinedOutput("patch", d), Status: StatusDeclined}
		case AbortTurn:
			return Result{Output: "aborted by user", Status: StatusAborted, AbortTurn: true}
		}
	}
	if err := inv.Start(); err != nil {
		return NotStarted(err)
	}
	// The home stays off limits even if the tree changed since the preview.
	res, err := patch.Apply(ctx, root, p, patch.Options{Editor: a.opts.Editor, Writable: func(abs string) bool { return a.protected(abs) == "" }})
	if err != nil {
		var we *patch.WriteError
		msg := "apply_patch: " + err.Error()
		if errors.As(err, &we) && we.Rollback != nil {
			msg += " (restoring earlier files failed too: " + we.Rollback.Error() + ")"
		}
		return Result{Output: msg, Status: StatusFailed}
	}
	if root != a.opts.Cwd {
		res.Under(root)
	}
	return Result{Output: res.String(), Status: StatusCompleted, Files: res.Files(), Diff: res.Diff()}
}
