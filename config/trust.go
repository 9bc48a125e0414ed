package config

import (
	"os"
	"path/filepath"
)

// Trust levels of [projects."<path>"].
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// ProjectTrust returns the trust_level recorded for the project holding
// the absolute directory dir, or "" when there is no decision. As in
// Codex, the project is dir itself, else the root of the git repository
// dir is in (the nearest ancestor holding .git).
func (c Config) ProjectTrust(dir string) string {
	dir = filepath.Clean(dir)
	if p, ok := c.Projects[dir]; ok && p.TrustLevel != "" {
		return p.TrustLevel
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if p, ok := c.Projects[d]; ok {
				return p.TrustLevel
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// WorkspaceDefaults returns the sandbox mode and approval policy for a
// session working in dir when no flag chooses them: the configured ones
// (sandbox_mode, approval_policy, the profile's, -c), else what Codex
// derives from the project's trust decision. A project with a decision,
// trusted or untrusted, defaults to workspace-write, any other to
// read-only; an untrusted project defaults to the untrusted approval
// policy, any other to [DefaultApprovalPolicy].
func (c Config) WorkspaceDefaults(dir string) (sandboxMode, approval string) {
	sandboxMode, approval = c.SandboxMode, c.ApprovalPolicy
	trust := c.ProjectTrust(dir)
	if sandboxMode == "" {
		sandboxMode = "read-only"
		if trust != "" {
			sandboxMode = "workspace-write"
		}
	}
	if approval == "" {
		approval = DefaultApprovalPolicy
		if trust == TrustUntrusted {
			approval = "untrusted"
		}
	}
	return sandboxMode, approval
}
