package execprint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// testTools is a workspace at /work whose commands run under /bin/bash,
// with one MCP server "docs" offering the tool "search".
func testTools() execprint.Tools {
	return execprint.Tools{Shell: "/bin/bash", Cwd: "/work", MCPTool: func(name string) (string, string, bool) {
		if name == "mcp__docs__search" {
			return "docs", "search", true
		}
		return "", "", false
	}}
}

func intp(n int) *int { return &n }

func command(id, cmd string) tools.Call {
	in, _ := json.Marshal(map[string]any{"cmd": cmd, "login": false})
	return tools.Call{ID: id, Name: "exec_command", Input: string(in)}
}

// toolEvents is a turn that runs a command, a patch, a plan, a rejected
// patch, an invalid command, write_stdin and two MCP calls.
func toolEvents() []session.Event {
	echo := command("c1", "echo hello")
	search := tools.Call{ID: "c6", Name: "mcp__docs__search", Input: `{"q":"x"}`}
	broken := tools.Call{ID: "c7", Name: "mcp__docs__search", Input: "not json"}
	return []session.Event{
		session.TurnStarted{Input: "hi"},
		session.ToolCallBegin{Call: echo},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: tools.StatusCompleted, Argv: []string{"/bin/bash", "-c", "echo hello"},
			CommandOutput: "hello\n", ExitCode: intp(0)}},
		session.ToolCallEnd{Call: tools.Call{ID: "c2", Name: "apply_patch"}, Result: tools.Result{Status: tools.StatusCompleted,
			Files: []string{"M src/z.go", "A /abs/a.txt", "D old.txt"}}},
		session.ToolCallEnd{Call: tools.Call{ID: "c3", Name: "update_plan"}, Result: tools.Result{Status: tools.StatusCompleted,
			Plan: []tools.PlanStep{{Step: "write", Status: "completed"}, {Step: "review", Status: "in_progress"}}}},
		session.ToolCallEnd{Call: tools.Call{ID: "c4", Name: "apply_patch"}, Result: tools.Result{Status: tools.StatusFailed, Output: "apply_patch: no such file"}},
		session.ToolCallEnd{Call: tools.Call{ID: "c3b", Name: "update_plan"}, Result: tools.Result{Status: tools.StatusFailed}},
		session.ToolCallBegin{Call: tools.Call{ID: "c5", Name: "exec_command", Input: "{"}},
		session.ToolCallEnd{Call: tools.Call{ID: "c5", Name: "exec_command"}, Result: tools.Result{Status: tools.StatusFailed, Output: "bad arguments"}},
		session.ToolCallEnd{Call: tools.Call{ID: "c5b", Name: "write_stdin"}, Result: tools.Result{Status: tools.StatusCompleted, Command: "cat", CommandOutput: "more"}},
		session.ToolCallBegin{Call: search},
		session.ToolCallEnd{Call: search, Result: tools.Result{Status: tools.StatusCompleted, MCP: &tools.MCPCall{Server: "docs", Tool: "search",
			Arguments: json.RawMessage(`{"q":"x"}`), Result: json.RawMessage(`{"content":[{"type":"text","text":"found"}]}`)}}},
		session.ToolCallBegin{Call: broken},
		session.ToolCallEnd{Call: broken, Result: tools.Result{Status: tools.StatusFailed, MCP: &tools.MCPCall{Server: "docs", Tool: "search", Error: "server gone"}}},
		session.ReasoningDone{ItemID: "r1", Text: "thinking"},
		session.MessageDone{ItemID: "m1", Text: "done"},
		session.ResponseCompleted{},
		session.TurnCompleted{Requests: 2, Total: transport.Usage{InputTokens: 20, OutputTokens: 10}},
	}
}

// TestJSONToolItems: each tool call is the item the reference client
// prints for it (command_execution started and completed, file_change
// with absolute sorted paths, todo_list, mcp_tool_call), calls that did
// nothing make no item, and every line is in the schema of
// docs/exec-json.schema.json.
func TestJSONToolItems(t *testing.T) {
	var out bytes.Buffer
	p := execprint.NewJSON(&out, "thread-1", testTools())
	for _, ev := range toolEvents() {
		p.Handle(ev)
	}
	want := []string{
		`{"type":"thread.started","thread_id":"thread-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -c 'echo hello'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -c 'echo hello'","aggregated_output":"hello\n","exit_code":0,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_1","type":"file_change","changes":[{"path":"/abs/a.txt","kind":"add"},{"path":"/work/old.txt","kind":"delete"},{"path":"/work/src/z.go","kind":"update"}],"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/abs/a.txt","kind":"add"},{"path":"/work/old.txt","kind":"delete"},{"path":"/work/src/z.go","kind":"update"}],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"todo_list","items":[{"text":"write","completed":true},{"text":"review","completed":false}]}}`,
		`{"type":"item.completed","item":{"id":"item_3","type":"command_execution","command":"cat","aggregated_output":"more","exit_code":null,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}],"structured_content":null},"error":null,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":"not json","result":null,"error":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{},"result":null,"error":{"message":"server gone"},"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_6","type":"reasoning","text":"thinking"}}`,
		`{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":"done"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":20,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0},"requests":2}`,
	}
	checkLines(t, out.String(), want)
}

// TestJSONNotices: a retry drops the failed attempt's messages; warnings
// and provider switches are their own events, never typed "error"; a
// failed turn ends in its one "error" and turn.failed.
func TestJSONNotices(t *testing.T) {
	var out bytes.Buffer
	p := execprint.NewJSON(&out, "thread-1", execprint.Tools{})
	turnErr := &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindAuth, Message: "bad key"}}}
	msg, _ := json.Marshal(turnErr.Error())
	for _, ev := range []session.Event{
		session.TurnStarted{},
		session.MessageDone{Text: "cut"},
		session.Retry{Retry: modelclient.Retry{Layer: "http", Class: "server_error", Attempt: 1, Max: 4, Left: 3,
			Delay: 200e6, Waited: 200e6, Failure: modelclient.Failure{Err: transport.ErrIncomplete}}},
		session.Warning{Message: "Falling back from WebSockets to HTTPS transport"},
		session.ProviderSwitch{From: failover.Candidate{Provider: "a", Model: "m1"}, To: failover.Candidate{Provider: "b", Model: "m2"}, Reason: "a is down"},
		session.TurnFailed{Err: turnErr, Requests: 2},
	} {
		p.Handle(ev)
	}
	checkLines(t, out.String(), []string{
		`{"type":"thread.started","thread_id":"thread-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"retry","layer":"http","class":"server_error","attempt":1,"max":4,"left":3,"delay_ms":200,"waited_ms":200,"reason":"stream closed before response.completed"}`,
		`{"type":"warning","message":"Falling back from WebSockets to HTTPS transport"}`,
		`{"type":"provider_switch","reason":"a is down","from":{"provider":"a","model":"m1"},"to":{"provider":"b","model":"m2"}}`,
		`{"type":"error","message":` + string(msg) + `}`,
		`{"type":"turn.failed","error":{"message":` + string(msg) + `},"requests":2}`,
	})
}

type brokenWriter struct{ writes int }

func (w *brokenWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, errors.New("broken pipe")
}

// TestJSONStopsAtWriteError: after a failed write (a closed pipe) the
// printer writes nothing more.
func TestJSONStopsAtWriteError(t *testing.T) {
	w := &brokenWriter{}
	p := execprint.NewJSON(w, "thread-1", execprint.Tools{})
	for _, ev := range toolEvents() {
		p.Handle(ev)
	}
	if w.writes != 1 {
		t.Errorf("%d writes; want 1, then none", w.writes)
	}
}

// checkLines compares JSONL with want line by line and validates every
// line against docs/exec-json.schema.json.
func checkLines(t *testing.T, got string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("JSONL (-want +got):\n%s", diff)
	}
	schema := execSchema(t)
	for _, line := range lines {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("line %s does not match the schema: %v", line, err)
		}
	}
}

// execSchema compiles docs/exec-json.schema.json.
func execSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "exec-json.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("exec-json.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("exec-json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJSONCollabItems: the subagent tools' calls are Codex's
// collab_tool_call items (resume_agent written as wait, as Codex's exec
// does), in the schema.
func TestJSONCollabItems(t *testing.T) {
	var out bytes.Buffer
	p := execprint.NewJSON(&out, "parent", testTools())
	spawn := tools.Call{ID: "s1", Name: "spawn_agent", Input: `{"message":"look around"}`}
	wait := tools.Call{ID: "w1", Name: "wait_agent", Input: `{"targets":["child"]}`}
	msg := "found it"
	for _, ev := range []session.Event{
		session.ToolCallBegin{Call: spawn},
		session.ToolCallEnd{Call: spawn, Result: tools.Result{Status: tools.StatusCompleted, Collab: &tools.CollabCall{
			Tool: "spawn_agent", Sender: "parent", Receivers: []string{"child"}, Prompt: "look around",
			States: map[string]tools.CollabAgentState{"child": {Status: "pending_init"}}}}},
		session.ToolCallBegin{Call: wait},
		session.ToolCallEnd{Call: wait, Result: tools.Result{Status: tools.StatusCompleted, Collab: &tools.CollabCall{
			Tool: "wait_agent", Sender: "parent", Receivers: []string{"child"},
			States: map[string]tools.CollabAgentState{"child": {Status: "completed", Message: &msg}}}}},
		session.ToolCallBegin{Call: tools.Call{ID: "r1", Name: "resume_agent", Input: `{"id":"gone"}`}},
		session.ToolCallEnd{Call: tools.Call{ID: "r1", Name: "resume_agent"}, Result: tools.Result{Status: tools.StatusFailed,
			Collab: &tools.CollabCall{Tool: "resume_agent", Sender: "parent", Receivers: []string{"gone"}}}},
	} {
		p.Handle(ev)
	}
	want := []string{
		`{"type":"thread.started","thread_id":"parent"}`,
		`{"type":"item.started","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"parent","receiver_thread_ids":[],"prompt":"look around","agents_states":{},"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"parent","receiver_thread_ids":["child"],"prompt":"look around","agents_states":{"child":{"status":"pending_init","message":null}},"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_1","type":"collab_tool_call","tool":"wait","sender_thread_id":"parent","receiver_thread_ids":["child"],"prompt":null,"agents_states":{},"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"collab_tool_call","tool":"wait","sender_thread_id":"parent","receiver_thread_ids":["child"],"prompt":null,"agents_states":{"child":{"status":"completed","message":"found it"}},"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_2","type":"collab_tool_call","tool":"wait","sender_thread_id":"parent","receiver_thread_ids":["gone"],"prompt":null,"agents_states":{},"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"collab_tool_call","tool":"wait","sender_thread_id":"parent","receiver_thread_ids":["gone"],"prompt":null,"agents_states":{},"status":"failed"}}`,
	}
	checkLines(t, out.String(), want)
}
