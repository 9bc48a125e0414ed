package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentcli/agent/session/hooks"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Hooks are a session's lifecycle hooks ([Options].Hooks) and the fields
// their events carry beside the event's own.
type Hooks struct {
	Set    *hooks.Set
	Runner *hooks.Runner
	// SessionID, TranscriptPath (the rollout file; "" sends null) and Cwd
	// are the session's.
	SessionID, TranscriptPath, Cwd string
	// Source is SessionStart's source: startup, resume, fork or clear.
	Source string
	// PermissionMode is Codex's permission_mode: bypassPermissions (no
	// sandbox, never asked), plan (plan mode) or default.
	PermissionMode string
	// Notices are said as warnings before the first turn: hooks files
	// that could not be read, hooks waiting for trust.
	Notices []string
	// Agent is set in a subagent's session (spawn_agent), whose hooks
	// are Codex's for a thread-spawned child: SubagentStart instead of
	// SessionStart (none when resumed), SubagentStop instead of Stop,
	// agent_id and agent_type on every event, no SessionEnd. SessionID
	// is then the root session's, as Codex's hook session id.
	Agent *HookAgent
}

// HookAgent is the subagent a session is, as its hooks see it.
type HookAgent struct {
	// ID is agent_id: the subagent's own session id.
	ID string
	// Type is agent_type: its role ("default" when spawned without
	// one), which SubagentStart's and SubagentStop's matchers select.
	Type string
	// ParentTranscriptPath is SubagentStop's transcript_path: the
	// parent's rollout ("" sends null); the subagent's own is its
	// agent_transcript_path.
	ParentTranscriptPath string
	// Label names the subagent to the user ("Euclid (explorer)") where
	// its hooks' runs are shown (its parent's front end, [Session.Relay]).
	Label string
}

// HookRun reports one hook's run on an event: front ends name a hook
// that blocked, failed, hung or answered garbage, and may show the others.
type HookRun struct {
	Event hooks.Event
	Run   hooks.Run
	// Agent and AgentID name the subagent whose hook it is (its
	// [HookAgent].Label and ID); "" for the session's own.
	Agent, AgentID string
}

// HookStopped says a hook ended the turn or the session's work
// (continue:false, or a blocked prompt) and why.
type HookStopped struct {
	Event  hooks.Event
	Reason string
}

// Notice is the one wording of a hook's run for exec and the chat, as
// Codex words it ("hook: PreToolUse Blocked"), with why, and which hook
// when it blocked or failed; a subagent's says whose it is ("hook of
// subagent Euclid (explorer): SubagentStop Failed: ...").
func (r HookRun) Notice() string {
	st := string(r.Run.Status)
	line := "hook: "
	if r.Agent != "" {
		line = "hook of subagent " + r.Agent + ": "
	}
	line += string(r.Event) + " " + strings.ToUpper(st[:1]) + st[1:]
	if r.Run.Message != "" {
		line += ": " + r.Run.Message
	}
	if r.Notable() {
		line += " — " + r.Run.Hook.Name()
	}
	if r.Run.SystemMessage != "" {
		line += "\n" + r.Run.SystemMessage
	}
	return line
}

// Notable reports whether the run blocked or failed: front ends show it
// as a warning.
func (r HookRun) Notable() bool { return r.Run.Status == hooks.Failed || r.Run.Status == hooks.Blocked }

// Notice words a hook's stop for the user.
func (h HookStopped) Notice() string {
	return fmt.Sprintf("%s hook stopped the turn: %s", h.Event, h.Reason)
}

func (HookRun) isEvent()     {}
func (HookStopped) isEvent() {}

// maxStopContinuations bounds how many times Stop hooks may send the
// model back to work in one turn.
const maxStopContinuations = 8

// hookInput is the fields every event of this session carries.
func (s *Session) hookInput(turnID string) hooks.Input {
	h := s.opts.Hooks
	in := hooks.Input{"session_id": h.SessionID, "cwd": h.Cwd, "model": s.sampling().Model,
		"permission_mode": h.PermissionMode, "transcript_path": nil}
	switch {
	case s.mode == ModePlan:
		in["permission_mode"] = "plan"
	case h.PermissionMode == "":
		in["permission_mode"] = "default"
	}
	if h.TranscriptPath != "" {
		in["transcript_path"] = h.TranscriptPath
	}
	if turnID != "" {
		in["turn_id"] = turnID
	}
	if a := h.Agent; a != nil {
		in["agent_id"], in["agent_type"] = a.ID, a.Type
	}
	return in
}

// stopEvent is the event run when the model ends a turn: Stop, or a
// subagent's SubagentStop.
func (s *Session) stopEvent() hooks.Event {
	if s.opts.Hooks != nil && s.opts.Hooks.Agent != nil {
		return hooks.SubagentStop
	}
	return hooks.Stop
}

// hooked reports whether some hook of ev runs in this session.
func (s *Session) hooked(ev hooks.Event) bool { return s.opts.Hooks != nil && s.opts.Hooks.Set.Has(ev) }

// runHooks runs ev's hooks and reports each run.
func (s *Session) runHooks(ctx context.Context, ev hooks.Event, match []string, in hooks.Input, emit func(Event)) hooks.Outcome {
	h := s.opts.Hooks
	if !s.hooked(ev) {
		return hooks.Outcome{}
	}
	o := h.Set.Run(ctx, h.Runner, ev, match, h.Cwd, in)
	for _, r := range o.Runs {
		run := HookRun{Event: ev, Run: r}
		if a := h.Agent; a != nil {
			run.Agent, run.AgentID = a.Label, a.ID
		}
		emit(run)
	}
	return o
}

// addContexts records hook contexts for the model, one developer message
// each, as Codex does.
func (s *Session) addContexts(contexts []string) {
	for _, c := range contexts {
		s.appendItems(transport.DeveloperMessage(c))
	}
}

// newTurnID names a turn to its hooks.
func newTurnID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "turn-" + hex.EncodeToString(b[:])
}

// sessionStart runs SessionStart once, before the session's first turn.
func (s *Session) sessionStart(ctx context.Context, emit func(Event)) {
	if s.opts.Hooks == nil || s.hookStarted {
		return
	}
	s.hookStarted = true
	for _, n := range s.opts.Hooks.Notices {
		emit(Warning{Message: n})
	}
	source := s.opts.Hooks.Source
	if source == "" {
		source = "startup"
		if s.opts.Resumed != nil {
			source = "resume"
		}
	}
	if a := s.opts.Hooks.Agent; a != nil {
		// Codex runs SubagentStart in a new child's first turn, matched on
		// its agent_type, and nothing for a resumed one.
		if source == "startup" {
			o := s.runHooks(ctx, hooks.SubagentStart, []string{a.Type}, s.hookInput(s.turnID), emit)
			s.addContexts(o.Contexts)
		}
		return
	}
	in := s.hookInput("")
	in["source"] = source
	o := s.runHooks(ctx, hooks.SessionStart, []string{source}, in, emit)
	s.addContexts(o.Contexts)
}

// End runs the SessionEnd hooks of a session that started (a front end
// calls it when it closes the session); a subagent's session has none.
func (s *Session) End(ctx context.Context, emit func(Event)) {
	if s.opts.Hooks == nil || s.opts.Hooks.Agent != nil || !s.hookStarted || s.hookEnded {
		return
	}
	s.hookEnded = true
	h := s.opts.Hooks
	in := hooks.Input{"session_id": h.SessionID, "cwd": h.Cwd, "transcript_path": nil, "reason": "other"}
	if h.TranscriptPath != "" {
		in["transcript_path"] = h.TranscriptPath
	}
	if emit == nil {
		emit = func(Event) {}
	}
	s.runHooks(ctx, hooks.SessionEnd, []string{"other"}, in, emit)
}

// userPromptSubmit runs UserPromptSubmit on the prompt: the contexts to
// record after it, or the reason it is not sent.
func (s *Session) userPromptSubmit(ctx context.Context, turnID, prompt string, emit func(Event)) (contexts []string, blocked string) {
	if !s.hooked(hooks.UserPromptSubmit) {
		return nil, ""
	}
	in := s.hookInput(turnID)
	in["prompt"] = prompt
	o := s.runHooks(ctx, hooks.UserPromptSubmit, nil, in, emit)
	switch {
	case o.Block:
		return nil, o.Reason
	case o.Stop:
		return nil, nonEmpty(o.StopReason, "a UserPromptSubmit hook stopped the turn")
	}
	return o.Contexts, ""
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// hookTool is how hooks name a call and its input: exec_command is Bash
// with {"command"}, apply_patch keeps its name (Write and Edit match it)
// with the patch as command, every other tool its own name and arguments.
func hookTool(c tools.Call) (name string, match []string, input any) {
	switch c.Name {
	case "exec_command":
		var a struct {
			Cmd string `json:"cmd"`
		}
		_ = json.Unmarshal([]byte(c.Input), &a)
		return "Bash", []string{"Bash"}, map[string]any{"command": a.Cmd}
	case "apply_patch":
		patch := c.Input
		if !c.Custom {
			var a struct {
				Input string `json:"input"`
			}
			_ = json.Unmarshal([]byte(c.Input), &a)
			patch = a.Input
		}
		return "apply_patch", []string{"apply_patch", "Write", "Edit"}, map[string]any{"command": patch}
	}
	var v any
	if json.Unmarshal([]byte(c.Input), &v) != nil {
		v = c.Input
	}
	return c.Name, []string{c.Name}, v
}

// preToolUse runs PreToolUse on a call: a blocked call's result (the
// model sees the reason), or the call with the input a hook rewrote.
func (s *Session) preToolUse(ctx context.Context, turnID string, call tools.Call, emit func(Event)) (tools.Call, *tools.Result) {
	if !s.hooked(hooks.PreToolUse) {
		return call, nil
	}
	name, match, input := hookTool(call)
	in := s.hookInput(turnID)
	in["tool_name"], in["tool_input"], in["tool_use_id"] = name, input, call.ID
	o := s.runHooks(ctx, hooks.PreToolUse, match, in, emit)
	if o.Block {
		msg := "Tool call blocked by PreToolUse hook: " + o.Reason
		if name == "Bash" {
			msg = fmt.Sprintf("Command blocked by PreToolUse hook: %s. Command: %s", o.Reason, input.(map[string]any)["command"])
		}
		return call, &tools.Result{Output: msg, Status: tools.StatusDeclined}
	}
	if o.UpdatedInput != nil {
		updated, err := rewriteInput(call, name, o.UpdatedInput)
		if err != nil {
			emit(Warning{Message: "PreToolUse hook: " + err.Error() + "; the call runs as the model wrote it"})
		} else {
			call = updated
		}
	}
	s.hookMu.Lock()
	s.pendingContexts = append(s.pendingContexts, o.Contexts...)
	s.hookMu.Unlock()
	return call, nil
}

// rewriteInput is call with a hook's updatedInput: Bash and apply_patch
// take its string command, other tools the whole object as arguments.
func rewriteInput(call tools.Call, name string, updated json.RawMessage) (tools.Call, error) {
	if name != "Bash" && name != "apply_patch" {
		call.Input = string(updated)
		return call, nil
	}
	var u struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(updated, &u) != nil || u.Command == nil {
		return call, fmt.Errorf("hook returned updatedInput without string field `command`")
	}
	field := "cmd"
	if name == "apply_patch" {
		if call.Custom {
			call.Input = *u.Command
			return call, nil
		}
		field = "input"
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(call.Input), &args); err != nil {
		return call, fmt.Errorf("cannot rewrite the call's arguments: %v", err)
	}
	v, _ := json.Marshal(*u.Command)
	args[field] = v
	b, _ := json.Marshal(args)
	call.Input = string(b)
	return call, nil
}

// postToolUse runs PostToolUse on a call that ran: a block's reason
// replaces the output the model sees; contexts follow the outputs.
func (s *Session) postToolUse(ctx context.Context, turnID string, call tools.Call, res tools.Result, emit func(Event)) tools.Result {
	if !s.hooked(hooks.PostToolUse) || res.Status == tools.StatusDeclined || res.Status == tools.StatusAborted {
		return res
	}
	name, match, input := hookTool(call)
	in := s.hookInput(turnID)
	in["tool_name"], in["tool_input"], in["tool_use_id"], in["tool_response"] = name, input, call.ID, res.Output
	o := s.runHooks(ctx, hooks.PostToolUse, match, in, emit)
	if o.Block {
		res.Output = nonEmpty(o.Reason, "PostToolUse hook blocked the tool result")
	}
	s.hookMu.Lock()
	s.pendingContexts = append(s.pendingContexts, o.Contexts...)
	s.hookMu.Unlock()
	return res
}

// permissionRequest runs PermissionRequest before the user is asked: a
// hook may approve or deny for them.
func (s *Session) permissionRequest(ctx context.Context, turnID string, call tools.Call, emit func(Event)) (tools.Decision, bool) {
	if !s.hooked(hooks.PermissionRequest) {
		return tools.Decision{}, false
	}
	name, match, input := hookTool(call)
	in := s.hookInput(turnID)
	in["tool_name"], in["tool_input"] = name, input
	o := s.runHooks(ctx, hooks.PermissionRequest, match, in, emit)
	switch {
	case o.Deny:
		return tools.Decision{Kind: tools.Deny, Note: o.Reason}, true
	case o.Allow:
		return tools.Decision{Kind: tools.ApproveOnce}, true
	}
	return tools.Decision{}, false
}

// stopHooks runs Stop (a subagent's SubagentStop) after the model ended
// the turn: the prompt to go on with when a hook blocks the stop.
func (s *Session) stopHooks(ctx context.Context, turnID, last string, active bool, emit func(Event)) (goOn string) {
	in := s.hookInput(turnID)
	in["stop_hook_active"] = active
	in["last_assistant_message"] = nil
	if last != "" {
		in["last_assistant_message"] = last
	}
	var match []string
	if a := s.opts.Hooks.Agent; a != nil {
		// Codex: the parent's rollout is the transcript, the child's its
		// agent_transcript_path.
		in["agent_transcript_path"], in["transcript_path"] = in["transcript_path"], nil
		if a.ParentTranscriptPath != "" {
			in["transcript_path"] = a.ParentTranscriptPath
		}
		match = []string{a.Type}
	}
	o := s.runHooks(ctx, s.stopEvent(), match, in, emit)
	if o.Block && !o.Stop {
		return o.Reason
	}
	return ""
}

// compactHooks runs PreCompact or PostCompact.
func (s *Session) compactHooks(ctx context.Context, ev hooks.Event, trigger string, emit func(Event)) {
	if !s.hooked(ev) {
		return
	}
	in := s.hookInput(s.turnID)
	in["trigger"] = trigger
	s.runHooks(ctx, ev, []string{trigger}, in, emit)
}

// lastAssistantText is the text of the last assistant message in history.
func (s *Session) lastAssistantText() string {
	for i := len(s.history) - 1; i >= 0; i-- {
		it := s.history[i]
		if it.Type == "message" && it.Role == "assistant" {
			return strings.TrimSpace(it.Text())
		}
	}
	return ""
}
