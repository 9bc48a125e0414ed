package frontends

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestACPPursuesGoal: a goal the model creates in an ACP session is
// pursued before the prompt answers, as in the chat and exec: the goal's
// continuation turn runs, the model marks it complete, the editor is told
// in a thought chunk, and the prompt ends end_turn after all of it.
func TestACPPursuesGoal(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		agenttest.CreateGoal("r1", "make the tests pass"), rt.Reply("r2", "m2", "goal set, starting"),
		agenttest.CompleteGoal("r3"), rt.Reply("r4", "m4", "all tests pass"),
	})
	home := writeConfig(t, srv.URL, "")
	work := t.TempDir()
	p := startACP(t, bin, home, work)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	sid, _ := p.response(t, 2)["result"].(map[string]any)["sessionId"].(string)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"make the tests pass, as a goal"}]}}`)
	var thoughts []string
	for {
		m := p.next(t, "the prompt's updates and answer", func(map[string]any) bool { return true })
		if m["id"] == float64(3) {
			if r, _ := m["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("the prompt: %v", m)
			}
			break
		}
		if u, _ := m["params"].(map[string]any)["update"].(map[string]any); u["sessionUpdate"] == "agent_thought_chunk" {
			thoughts = append(thoughts, fmt.Sprint(u["content"].(map[string]any)["text"]))
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d model requests before the prompt answered; want 4 (the turn's two, the goal turn's two)", n)
	}
	if body := string(srv.Requests()[2].Body); !strings.Contains(body, "Continue working toward the goal: make the tests pass") {
		t.Errorf("the third request is not the goal's continuation:\n%s", body)
	}
	if !strings.Contains(strings.Join(thoughts, "\n"), "Goal complete: make the tests pass") {
		t.Errorf("the editor was not told the goal is complete: %q", thoughts)
	}
}
