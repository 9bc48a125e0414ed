package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	engine "github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// A session's settings the client may choose, offered three ways: as
// session config options (ACP's way: "mode", "model" and, for a model
// that takes one, "reasoning_effort", set with session/set_config_option),
// as modes (session/set_mode) and as the unstable model state
// (session/set_model) older clients read. Each change applies from the
// session's next turn.

// The config option ids.
const (
	optMode   = "mode"
	optModel  = "model"
	optEffort = "reasoning_effort"
)

// configMode is the mode of permissions that are none of the presets:
// the config's own combination.
const configMode = "config"

// defaultEffort is the effort value that sends none: the model's own
// default.
const defaultEffort = "default"

// currentMode is the id of the preset the session's permissions are, or
// "config" when they are none of them.
func (se *session) currentMode() string {
	ws := se.t.Workspace()
	if p, ok := tools.PresetOf(string(ws.Sandbox.Mode), ws.Policy); ok {
		return p.ID
	}
	return configMode
}

// modes are the session's modes: the presets, and the config's
// permissions when they are none of them.
func (se *session) modes() *sdk.SessionModeState {
	cur := se.currentMode()
	var all []sdk.SessionMode
	if cur == configMode {
		all = append(all, sdk.SessionMode{Id: configMode, Name: "As configured", Description: sdk.Ptr(se.configDesc())})
	}
	for _, p := range tools.ApprovalPresets() {
		all = append(all, sdk.SessionMode{Id: sdk.SessionModeId(p.ID), Name: p.Label, Description: sdk.Ptr(p.Allows)})
	}
	return &sdk.SessionModeState{AvailableModes: all, CurrentModeId: sdk.SessionModeId(cur)}
}

// configDesc describes the config's permissions.
func (se *session) configDesc() string {
	ws := se.t.Workspace()
	return fmt.Sprintf("approval policy %s, sandbox %s", ws.Policy, ws.Sandbox.Mode)
}

// setMode sets the session's permissions to the preset id from its next
// turn on.
func (se *session) setMode(id string) error {
	if id == configMode && se.currentMode() == configMode {
		return nil
	}
	for _, p := range tools.ApprovalPresets() {
		if p.ID != id {
			continue
		}
		if _, err := se.t.SetPermissions(p.Policy, p.Sandbox); err != nil {
			return sdk.NewInternalError(map[string]any{"error": err.Error()})
		}
		return nil
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no mode %q (read-only, auto or full-access)", id)})
}

// model is the session's model and reasoning effort for its next turn.
func (se *session) model() (name, effort string) {
	st := se.t.Settings().Sampling
	return st.Model, st.ReasoningEffort
}

// catalogue is the models a session may choose, the current one first
// when the list lacks it.
func (se *session) catalogue(ctx context.Context) []string {
	all := se.s.models(ctx)
	if cur, _ := se.model(); cur != "" && !slices.Contains(all, cur) {
		all = append([]string{cur}, all...)
	}
	return all
}

// efforts are the reasoning efforts the session's model takes, "default"
// (none sent) first and the current one included; none when the model
// takes none.
func (se *session) efforts() (all []string, cur string) {
	name, cur := se.model()
	known := se.s.opts.App.Config().Efforts(name)
	if len(known) == 0 {
		return nil, ""
	}
	if cur == "" {
		cur = defaultEffort
	}
	all = append([]string{defaultEffort}, known...)
	if !slices.Contains(all, cur) {
		all = append(all, cur)
	}
	return all, cur
}

// configOptions are the session's config options with their current
// values.
func (se *session) configOptions(ctx context.Context) []sdk.SessionConfigOption {
	sel := func(id, name, desc string, cat sdk.SessionConfigOptionCategory, cur string, opts []sdk.SessionConfigSelectOption) sdk.SessionConfigOption {
		u := sdk.SessionConfigSelectOptionsUngrouped(opts)
		return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
			Id: sdk.SessionConfigId(id), Name: name, Description: sdk.Ptr(desc), Category: sdk.Ptr(cat),
			CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &u}, Type: "select",
		}}
	}
	var modes []sdk.SessionConfigSelectOption
	for _, m := range se.modes().AvailableModes {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	var models []sdk.SessionConfigSelectOption
	for _, m := range se.catalogue(ctx) {
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: m})
	}
	cur, _ := se.model()
	out := []sdk.SessionConfigOption{
		sel(optMode, "Approval preset", "what agent may do without asking: its sandbox and approval policy", sdk.SessionConfigOptionCategoryMode, se.currentMode(), modes),
		sel(optModel, "Model", "the model of the next turns", sdk.SessionConfigOptionCategoryModel, cur, models),
	}
	if all, curEffort := se.efforts(); len(all) > 0 {
		var efforts []sdk.SessionConfigSelectOption
		for _, e := range all {
			o := sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(e), Name: titleCase(e)}
			if e == defaultEffort {
				o.Description = sdk.Ptr("the model's own default: agent sends no effort")
			}
			efforts = append(efforts, o)
		}
		out = append(out, sel(optEffort, "Reasoning effort", "how much the model reasons before it answers", sdk.SessionConfigOptionCategoryThoughtLevel, curEffort, efforts))
	}
	return out
}

// titleCase is s with its first letter upper case.
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// modelState is the unstable model state: the catalogue.
func (se *session) modelState(ctx context.Context) *sdk.SessionModelState {
	cur, _ := se.model()
	var all []sdk.ModelInfo
	for _, m := range se.catalogue(ctx) {
		all = append(all, sdk.ModelInfo{ModelId: sdk.ModelId(m), Name: m})
	}
	return &sdk.SessionModelState{AvailableModels: all, CurrentModelId: sdk.ModelId(cur)}
}

// setModel makes name the session's model from its next turn on: one the
// catalogue lists, or "NAME/EFFORT" as codex-acp spells a model with its
// reasoning effort.
func (se *session) setModel(ctx context.Context, name string) error {
	effort := ""
	if n, e, ok := strings.Cut(name, "/"); ok && slices.Contains(se.s.opts.App.Config().Efforts(n), e) {
		name, effort = n, e
	}
	if !slices.Contains(se.catalogue(ctx), name) {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no model %q among the provider's (%s)", name, strings.Join(se.catalogue(ctx), ", "))})
	}
	if err := se.t.SetModel(name, effort); err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return nil
}

// setEffort sets the reasoning effort of the session's model from its
// next turn on ("default": none sent).
func (se *session) setEffort(effort string) error {
	all, _ := se.efforts()
	if !slices.Contains(all, effort) {
		name, _ := se.model()
		if len(all) == 0 {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("the model %s takes no reasoning effort", name)})
		}
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no reasoning effort %q for %s (%s)", effort, name, strings.Join(all, ", "))})
	}
	if effort == defaultEffort {
		effort = ""
	}
	se.t.Configure(func(st *engine.Settings) { st.Sampling.ReasoningEffort = effort })
	return nil
}

// setOption sets config option id to value.
func (se *session) setOption(ctx context.Context, id, value string) error {
	switch id {
	case optMode:
		return se.setMode(value)
	case optModel:
		return se.setModel(ctx, value)
	case optEffort:
		return se.setEffort(value)
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no config option %q (mode, model, reasoning_effort)", id)})
}

// changed tells the client of a change it did not ask for through
// session/set_config_option: the current mode and the config options.
func (se *session) changed(ctx context.Context) {
	se.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(se.currentMode()), SessionUpdate: "current_mode_update"}})
	se.update(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: se.configOptions(ctx), SessionUpdate: "config_option_update"}})
}
