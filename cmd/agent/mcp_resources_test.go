package main

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
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
		got := agenttest.OutputOf(t, reqs[1], id)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s's output %q lacks %q", id, got, w)
			}
		}
	}
}
