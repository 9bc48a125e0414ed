package session

import (
	"context"
	"strings"

	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Mode is a collaboration mode, as Codex names them (its ModeKind): how
// the model works with the user over the next turns.
type Mode string

// The collaboration modes.
const (
	// ModeDefault is the usual mode: the model carries the work out.
	ModeDefault Mode = "default"
	// ModePlan is plan mode: the model explores without changing
	// anything, asks with request_user_input, and presents a plan in a
	// <proposed_plan> block. The session refuses apply_patch, update_plan
	// (as Codex does) and every request to leave the sandbox; the front
	// end runs commands under a read-only sandbox (app.Thread.SetMode).
	ModePlan Mode = "plan"
)

// ParseMode checks a collaboration mode as a front end or a client gives
// it ("" is the default mode).
func ParseMode(s string) (Mode, bool) {
	switch Mode(s) {
	case ModeDefault, "":
		return ModeDefault, true
	case ModePlan:
		return ModePlan, true
	}
	return "", false
}

// PlanProposed is the plan the model presented in plan mode: the body of
// the <proposed_plan> block of its message (the message itself is
// [MessageDone]). Front ends show it as the plan and offer to carry it out.
type PlanProposed struct {
	ItemID string
	Plan   string
}

// ModeChanged says the turn that starts runs in another collaboration
// mode; the model was told in a developer message recorded before it.
type ModeChanged struct {
	Mode Mode
}

func (PlanProposed) isEvent() {}
func (ModeChanged) isEvent()  {}

// collaborationTag wraps the developer message that tells the model its
// mode, as Codex wraps it; a resumed session's mode is read back from the
// last such message ([modeOf]).
const collaborationTag = "collaboration_mode"

// planInstructions tell the model what plan mode means (agent's wording of
// Codex's rules: explore, ask, present the plan in a <proposed_plan>
// block; nothing is changed until the user leaves plan mode).
const planInstructions = `# Collaboration mode: Plan

You are in Plan mode until a developer message ends it. A request to do the work while in Plan mode is a request to plan it.

Explore before you ask: read files, search, inspect configuration, run builds or tests that change no tracked file. Do not change anything: commands run in a read-only sandbox, apply_patch is refused, and no request to leave the sandbox is granted. update_plan is a progress checklist for carrying work out; it is refused in Plan mode.

Ask the user about decisions that change the plan and cannot be found out by exploring, with the request_user_input tool (one to three questions, each with two or three choices, the recommended one first).

When the plan is complete, with nothing left for the implementer to decide, present it once in your answer inside a block, the tags each on a line of their own:

<proposed_plan>
# Title
Summary, the changes (interfaces and types included), the tests, and the assumptions made.
</proposed_plan>

Do not ask whether to proceed: the user leaves Plan mode to have the plan carried out.`

// defaultInstructions tell the model that plan mode is over.
const defaultInstructions = `# Collaboration mode: Default

You are now in Default mode; the instructions of Plan mode no longer apply. Carry the user's requests out. request_user_input is meant for Plan mode: prefer acting on the user's request, and ask only when a decision cannot be found out.`

// modeMessage is the developer message telling the model it works in m
// from here on.
func modeMessage(m Mode) transport.Item {
	text := defaultInstructions
	if m == ModePlan {
		text = planInstructions
	}
	it := transport.DeveloperMessage("<" + collaborationTag + ">" + text + "</" + collaborationTag + ">")
	it.Origin = transport.OriginContext
	return it
}

// modeOf is the mode a history leaves the session in: that of its last
// collaboration-mode message, default without one.
func modeOf(history []transport.Item) Mode {
	for i := len(history) - 1; i >= 0; i-- {
		it := history[i]
		if it.Type != "message" || it.Role != "developer" {
			continue
		}
		text := it.Text()
		if !strings.HasPrefix(text, "<"+collaborationTag+">") {
			continue
		}
		if strings.Contains(text, "# Collaboration mode: Plan") {
			return ModePlan
		}
		return ModeDefault
	}
	return ModeDefault
}

// Mode is the collaboration mode the next turn runs in (including a
// change not yet applied). It is safe to call from any goroutine.
func (s *Session) Mode() Mode {
	st := s.Settings()
	if st.Mode == "" {
		return ModeDefault
	}
	return st.Mode
}

// planRefusal answers a call plan mode does not run: apply_patch (nothing
// is written in plan mode) and update_plan (Codex refuses it there, with
// these words).
func (s *Session) planRefusal(c tools.Call) (tools.Result, bool) {
	if s.mode != ModePlan {
		return tools.Result{}, false
	}
	switch c.Name {
	case "apply_patch":
		return tools.Result{Status: tools.StatusDeclined, Output: "apply_patch is refused in Plan mode: nothing was changed. " +
			"Put the change in your <proposed_plan>; it is carried out once the user leaves Plan mode."}, true
	case "update_plan":
		return tools.Result{Status: tools.StatusFailed, Output: "update_plan is a TODO/checklist tool and is not allowed in Plan mode"}, true
	}
	return tools.Result{}, false
}

// planApproval answers, in plan mode, an approval request that would
// change something outside the read-only sandbox: denied without asking.
func (s *Session) planApproval(_ context.Context, req tools.ApprovalRequest) (tools.Decision, bool) {
	if s.mode != ModePlan || !req.Escalated && req.Kind != "patch" {
		return tools.Decision{}, false
	}
	return tools.Decision{Kind: tools.Deny, Note: "Plan mode is read-only: nothing may run outside the read-only sandbox until the user leaves Plan mode"}, true
}

// proposedPlan is the body of the <proposed_plan> block of an assistant
// message, if it has one.
func proposedPlan(text string) (string, bool) {
	const open, end = "<proposed_plan>", "</proposed_plan>"
	i := strings.Index(text, open)
	if i < 0 {
		return "", false
	}
	body := text[i+len(open):]
	if j := strings.Index(body, end); j >= 0 {
		body = body[:j]
	}
	body = strings.TrimSpace(body)
	return body, body != ""
}
