package appserver

import (
	"encoding/json"
	"testing"

	"github.com/agentcli/agent/tools"
)

// TestCollabItem: a subagent tool's call is Codex's collabAgentToolCall
// item (v2 names and camelCase statuses), started from its arguments and
// completed with the agents it is about.
func TestCollabItem(t *testing.T) {
	call := tools.Call{ID: "c1", Name: "spawn_agent", Input: `{"message":"count files","model":"m"}`}
	item := collabItem(call, "parent")
	msg := "12 files"
	completeCollab(item, tools.Result{Status: tools.StatusCompleted, Collab: &tools.CollabCall{
		Receivers: []string{"child"}, States: map[string]tools.CollabAgentState{"child": {Status: "pending_init", Message: &msg}}}})
	got, _ := json.Marshal(item)
	want := `{"agentsStates":{"child":{"message":"12 files","status":"pendingInit"}},"id":"c1","model":"m","prompt":"count files",` +
		`"reasoningEffort":null,"receiverThreadIds":["child"],"senderThreadId":"parent","status":"completed","tool":"spawnAgent","type":"collabAgentToolCall"}`
	if string(got) != want {
		t.Errorf("item\n%s\nwant\n%s", got, want)
	}
	wait := collabItem(tools.Call{ID: "c2", Name: "wait_agent", Input: `{"targets":["a","b"]}`}, "parent")
	if wait["tool"] != "wait" || len(wait["receiverThreadIds"].([]string)) != 2 {
		t.Errorf("wait_agent's item %v", wait)
	}
	if collabItem(tools.Call{Name: "exec_command"}, "p") != nil {
		t.Error("exec_command made a collab item")
	}
}
