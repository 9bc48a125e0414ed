package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestExecJSONSubagents: `agent exec --json` on a turn whose model spawns
// a subagent (Codex's spawn_agent) and waits for it: the child is a
// session of its own (its own requests), and stdout carries Codex's
// collab_tool_call items, the wait's completed with the child's answer.
func TestExecJSONSubagents(t *testing.T) {
	t.Parallel()
	fc := func(resp, id, name, args string) rt.Attempt {
		return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
	}
	ps := agenttest.NewPromptServer(t, map[string]rt.Script{
		"parent task": {
			fc("p1", "c1", "spawn_agent", `{"message":"child task","agent_type":"explorer"}`),
			fc("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "all done"),
		},
		"child task": {rt.Reply("k1", "km1", "found 3 files")},
	})
	r := runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--json", "parent task")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var collab []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if ev.Item != nil && ev.Item["type"] == "collab_tool_call" {
			ev.Item["event"] = ev.Type
			collab = append(collab, ev.Item)
		}
	}
	if len(collab) != 4 {
		t.Fatalf("%d collab_tool_call events; want spawn and wait, started and completed:\n%s", len(collab), r.stdout)
	}
	spawned := collab[1]
	ids, _ := spawned["receiver_thread_ids"].([]any)
	if spawned["tool"] != "spawn_agent" || spawned["status"] != "completed" || len(ids) != 1 || spawned["prompt"] != "child task" {
		t.Fatalf("spawn's item %v", spawned)
	}
	child := ids[0].(string)
	waited := collab[3]
	states, _ := waited["agents_states"].(map[string]any)
	st, _ := states[child].(map[string]any)
	if waited["tool"] != "wait" || waited["status"] != "completed" || st["status"] != "completed" || st["message"] != "found 3 files" {
		t.Errorf("wait's item %v; want the child %s completed with its answer", waited, child)
	}
	if got := ps.Requests(); got["parent task"] != 3 || got["child task"] != 1 {
		t.Errorf("requests %v; want 3 for the parent, 1 for the child", got)
	}
	if !strings.Contains(r.stdout, `"text":"all done"`) {
		t.Errorf("no final answer:\n%s", r.stdout)
	}
}
