package tools

import "fmt"

// Approval policies (approval_policy in config).
const (
	PolicyUntrusted = "untrusted"
	PolicyOnRequest = "on-request"
	PolicyOnFailure = "on-failure" // an alias of on-request
	PolicyNever     = "never"
)

// Sandbox modes (sandbox_mode in config).
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	SandboxFullAccess     = "danger-full-access"
)

// ApprovalRequest describes what a call wants to do.
type ApprovalRequest struct {
	// CallID identifies the call.
	CallID string
	// Kind is "command", "patch" or "mcp" (a call to a tool of an MCP
	// server).
	Kind string
	// Command is the command line (Kind "command"), or the tool's name and
	// arguments (Kind "mcp").
	Command string
	// Workdir is where the command runs.
	Workdir string
	// Files are the paths a patch touches (Kind "patch").
	Files []string
	// Diff is the unified diff the patch would make (Kind "patch"), as
	// previewed against the files before asking.
	Diff string
	// Escalated says the call asks to run outside the sandbox.
	Escalated bool
	// Reason is the model's justification, if it gave one.
	Reason string
	// Agent names the subagent whose call it is ("nickname (role) id"),
	// asking through its parent's front end; "" for the session itself.
	Agent string
}

// Key identifies "the same request" for approve-for-session.
func (r ApprovalRequest) Key() string {
	if r.Kind == "command" || r.Kind == "mcp" {
		return fmt.Sprintf("%s\x00%s\x00%v", r.Kind, r.Command, r.Escalated)
	}
	return fmt.Sprintf("patch\x00%q", r.Files)
}

// Decision is the user's answer to an approval request.
type Decision struct {
	Kind DecisionKind
	// Note is the user's message to the model with a denial.
	Note string
}

// DecisionKind enumerates the possible answers.
type DecisionKind int

// The decisions.
const (
	ApproveOnce DecisionKind = iota
	ApproveForSession
	Deny
	AbortTurn
)

// NeedsApproval applies the approval policy to req: whether the user must
// be asked before it runs.
func NeedsApproval(policy, sandbox string, req ApprovalRequest) bool {
	switch policy {
	case PolicyNever:
		return false
	case PolicyUntrusted:
		return true
	}
	// on-request: sandboxed calls run; escaping the sandbox asks.
	return req.Escalated && sandbox != SandboxFullAccess
}

// Forbidden reports whether req cannot run at all under policy: asking to
// leave the sandbox when the policy never asks.
func Forbidden(policy, sandbox string, req ApprovalRequest) bool {
	return policy == PolicyNever && req.Escalated && sandbox != SandboxFullAccess
}

// declinedOutput is the text the model gets for a denial.
func declinedOutput(what string, d Decision) string {
	msg := what + " rejected by user"
	if d.Note != "" {
		msg += ": " + d.Note
	}
	return msg
}

// ParsePolicy checks an approval policy as config, the -a flags and the
// chat's /approvals give it, and returns it with on-failure read as
// on-request (an alias, as in the reference client). It is the one parser
// of approval policies.
func ParsePolicy(s string) (string, error) {
	switch s {
	case PolicyUntrusted, PolicyOnRequest, PolicyNever:
		return s, nil
	case PolicyOnFailure:
		return PolicyOnRequest, nil
	}
	return "", fmt.Errorf("approval policy %q: want untrusted, on-request, on-failure or never", s)
}

// Policies lists the approval policies [ParsePolicy] accepts.
func Policies() []string {
	return []string{PolicyUntrusted, PolicyOnRequest, PolicyOnFailure, PolicyNever}
}
