package tools

// ApprovalPreset is a named combination of a sandbox and an approval
// policy: the chat's /permissions choices and the modes of `agent acp`.
type ApprovalPreset struct {
	// ID is what /permissions ID and an ACP session/set_mode take.
	ID string
	// Label names it in a picker; Allows says what it lets the model do.
	Label, Allows string
	// Sandbox and Policy are what it sets.
	Sandbox, Policy string
}

// ApprovalPresets are the presets, from the narrowest.
func ApprovalPresets() []ApprovalPreset {
	return []ApprovalPreset{
		{ID: "read-only", Label: "Read only", Sandbox: SandboxReadOnly, Policy: PolicyOnRequest,
			Allows: "reads files and runs read-only commands; asks before anything else"},
		{ID: "auto", Label: "Auto", Sandbox: SandboxWorkspaceWrite, Policy: PolicyOnRequest,
			Allows: "edits files and runs commands in the workspace; asks to go beyond it or use the network"},
		{ID: "full-access", Label: "Full access", Sandbox: SandboxFullAccess, Policy: PolicyNever,
			Allows: "edits anything and runs any command, network included, without asking"},
	}
}

// PresetOf returns the preset whose sandbox and policy are these, and
// whether there is one.
func PresetOf(sandbox, policy string) (ApprovalPreset, bool) {
	for _, p := range ApprovalPresets() {
		if p.Sandbox == sandbox && p.Policy == policy {
			return p, true
		}
	}
	return ApprovalPreset{}, false
}
