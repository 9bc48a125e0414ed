package appserver

import (
	"encoding/json"
	"strings"

	"github.com/agentcli/agent/tools"
)

// collabTool is Codex's v2 name (CollabAgentTool) of a subagent tool;
// false for another tool.
func collabTool(name string) (string, bool) {
	switch name {
	case "spawn_agent":
		return "spawnAgent", true
	case "send_input":
		return "sendInput", true
	case "resume_agent":
		return "resumeAgent", true
	case "wait_agent":
		return "wait", true
	case "close_agent":
		return "closeAgent", true
	}
	return "", false
}

// collabItem is the collabAgentToolCall item of a call to a subagent tool
// as it starts, from its arguments; nil for another tool.
func collabItem(call tools.Call, sender string) map[string]any {
	tool, ok := collabTool(call.Name)
	if !ok {
		return nil
	}
	var a struct {
		Message         *string  `json:"message"`
		Target          string   `json:"target"`
		ID              string   `json:"id"`
		Targets         []string `json:"targets"`
		Model           *string  `json:"model"`
		ReasoningEffort *string  `json:"reasoning_effort"`
	}
	_ = json.Unmarshal([]byte(call.Input), &a)
	receivers := a.Targets
	for _, id := range []string{a.Target, a.ID} {
		if id != "" {
			receivers = append(receivers, id)
		}
	}
	if receivers == nil || call.Name == "spawn_agent" {
		receivers = []string{}
	}
	return map[string]any{"type": "collabAgentToolCall", "id": call.ID, "tool": tool, "status": "inProgress",
		"senderThreadId": sender, "receiverThreadIds": receivers, "prompt": a.Message,
		"model": a.Model, "reasoningEffort": a.ReasoningEffort, "agentsStates": map[string]any{}}
}

// completeCollab fills a collabAgentToolCall item with how the call
// ended: the subagents it is about and their states.
func completeCollab(item map[string]any, r tools.Result) {
	c := r.Collab
	item["status"] = "completed"
	if r.Status != tools.StatusCompleted {
		item["status"] = "failed"
	}
	if c.Receivers != nil {
		item["receiverThreadIds"] = c.Receivers
	}
	states := map[string]any{}
	for id, st := range c.States {
		states[id] = map[string]any{"status": camel(st.Status), "message": st.Message}
	}
	item["agentsStates"] = states
}

// camel is a status in the v2 protocol's case: pending_init, not_found
// become pendingInit, notFound.
func camel(s string) string {
	head, tail, ok := strings.Cut(s, "_")
	if !ok {
		return s
	}
	return head + strings.ToUpper(tail[:1]) + tail[1:]
}
