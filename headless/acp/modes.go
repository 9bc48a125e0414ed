package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// mode is an approval preset offered as a session mode: the chat's
// /permissions presets.
type mode struct {
	id, name, desc  string
	sandbox, policy string
}

// presets are the modes, from the narrowest.
var presets = []mode{
	{"read-only", "Read only", "reads files and runs read-only commands; asks before anything else", "read-only", "on-request"},
	{"auto", "Auto", "edits files and runs commands in the workspace; asks to go beyond it or use the network", "workspace-write", "on-request"},
	{"full-access", "Full access", "edits anything and runs any command, network included, without asking", "danger-full-access", "never"},
}

// currentMode is the id of the preset the session's permissions are, or
// "config" when they are none of them (the config's own combination).
func (se *session) currentMode() string {
	ws := se.t.Workspace()
	for _, m := range presets {
		if string(ws.Sandbox.Mode) == m.sandbox && ws.Policy == m.policy {
			return m.id
		}
	}
	return "config"
}

// modes are the session's modes: the presets, and the config's
// permissions when they are none of them.
func (se *session) modes() *sdk.SessionModeState {
	cur := se.currentMode()
	var all []sdk.SessionMode
	if cur == "config" {
		ws := se.t.Workspace()
		all = append(all, sdk.SessionMode{Id: "config", Name: "As configured",
			Description: sdk.Ptr(fmt.Sprintf("approval policy %s, sandbox %s", ws.Policy, ws.Sandbox.Mode))})
	}
	for _, m := range presets {
		all = append(all, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	return &sdk.SessionModeState{AvailableModes: all, CurrentModeId: sdk.SessionModeId(cur)}
}

// setMode sets the session's permissions to the preset id from its next
// turn on.
func (se *session) setMode(ctx context.Context, id string) error {
	for _, m := range presets {
		if m.id != id {
			continue
		}
		if _, err := se.t.SetPermissions(m.policy, m.sandbox); err != nil {
			return sdk.NewInternalError(map[string]any{"error": err.Error()})
		}
		se.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(id), SessionUpdate: "current_mode_update"}})
		return nil
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no mode %q (read-only, auto or full-access)", id)})
}
