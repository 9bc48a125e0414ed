package frontends

import (
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatMCPElicitation (tmux): a server's elicitation during a tool
// call is a form in the chat's question box, its message and server named:
// the text field answered by typing, the enum by its number; the server
// gets the answers and the model the tool's answer built from them.
func TestE2EChatMCPElicitation(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	mcpSrv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Elicit: true}})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("f1", "call_book", "mcp__trips__book", `{}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", "your seat is booked"),
	})
	home := writeConfig(t, srv.URL, "[mcp_servers.trips]\nurl = \""+mcpSrv.URL+"\"\ndefault_tools_approval_mode = \"approve\"\n")
	c := startChat(t, bin, home, t.TempDir())
	for i := 0; ; i++ { // the server starts in the background
		c.send("/mcp")
		if _, ok := c.poll(2*time.Second, "trips: ready"); ok {
			break
		}
		if i == 10 {
			t.Fatalf("the MCP server never became ready:\n%s", c.screen())
		}
	}
	c.send("book me a seat")
	c.waitFor("Question 1/2", `(MCP server "trips")`)
	c.keys("-l", "Ann")
	c.keys("Enter")
	c.waitFor("Question 2/2", "window", "aisle")
	c.keys("2")
	c.waitFor("your seat is booked")
	c.waitIdle()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if got := agenttest.OutputOf(t, reqs[1], "call_book"); got != "booked Ann at aisle" {
		t.Errorf("the model saw %q, want the server's answer to the form", got)
	}
	c.keys("C-d")
}
