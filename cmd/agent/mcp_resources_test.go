package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestExecMCPResourcesAndElicitation: agent exec offers the model Codex
// 0.171's list_mcp_resources, list_mcp_resource_templates and
// read_mcp_resource for a server with resources, and their answers are the
// function_call_outputs of the next request; a server's elicitation, which
// nobody can answer in exec, is declined and the model sees the server's
// answer saying so.
func TestExecMCPResourcesAndElicitation(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	mcpSrv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Resources: true, Elicit: true}})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"),
			rt.FunctionCallDone("f1", "call_list", "list_mcp_resources", `{"server":"docs"}`),
			rt.FunctionCallDone("f2", "call_tpl", "list_mcp_resource_templates", `{}`),
			rt.FunctionCallDone("f3", "call_read", "read_mcp_resource", `{"server":"docs","uri":"file:///notes.txt"}`),
			rt.FunctionCallDone("f4", "call_book", "mcp__docs__book", `{}`),
			rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	})
	r := startCLI(t, ctx, srv, "[mcp_servers.docs]\nurl = \""+mcpSrv.URL+"\"\ndefault_tools_approval_mode = \"approve\"\n",
		"exec", "-C", t.TempDir(), "read the notes and book a seat")
	r.wait(t, ctx)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	offered := " " + strings.Join(requestTools(reqs[0]), " ") + " "
	for _, name := range []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource", "mcp__docs__book"} {
		if !strings.Contains(offered, " "+name+" ") {
			t.Errorf("the first request does not offer %s: %s", name, offered)
		}
	}
	for id, want := range map[string][]string{
		"call_list": {`"uri":"file:///notes.txt"`, `"server":"docs"`},
		"call_tpl":  {`"uriTemplate":"file:///logs/{day}.txt"`},
		"call_read": {`"uri":"file:///notes.txt"`, `"text":"the notes"`},
		"call_book": {"the user declined"},
	} {
		got := outputOf(t, reqs[1], id)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s's output %q lacks %q", id, got, w)
			}
		}
	}
}

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
	if got := outputOf(t, reqs[1], "call_book"); got != "booked Ann at aisle" {
		t.Errorf("the model saw %q, want the server's answer to the form", got)
	}
	c.keys("C-d")
}
