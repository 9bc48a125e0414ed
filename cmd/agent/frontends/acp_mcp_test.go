package frontends

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestACPClientMCPServers: the MCP servers an editor passes to session/new
// (a stdio one, as every agent must take, and a streamable HTTP one, as
// agent declares mcpCapabilities.http) are the session's: their tools are
// offered in the session's first request, the model's calls reach them,
// and a server named like one of config.toml's is not started, config's
// winning.
func TestACPClientMCPServers(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	stdio := agenttest.StdioMCPServer(t)
	web := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"),
			rt.FunctionCallDone("fc1", "call_ed", "mcp__ed__echo", `{"text":"from the editor's server"}`),
			rt.FunctionCallDone("fc2", "call_web", "mcp__web__add", `{"a":2,"b":40}`),
			rt.Completed("r1")),
		rt.Reply("r2", "m2", "both answered"),
	})
	home := writeConfig(t, srv.URL, "\n[mcp_servers.mine]\ncommand = "+strconv.Quote(stdio)+"\n")
	work := t.TempDir()
	p := startACP(t, bin, home, work, "-a", "never", "-s", "danger-full-access")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r := p.response(t, 1)
	caps, _ := r["result"].(map[string]any)["agentCapabilities"].(map[string]any)
	if mc, _ := caps["mcpCapabilities"].(map[string]any); mc["http"] != true {
		t.Errorf("initialize: agentCapabilities %v; want mcpCapabilities.http", caps)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[`+
		`{"name":"ed","command":`+strconv.Quote(stdio)+`,"args":[],"env":[{"name":"SOME_VAR","value":"1"}]},`+
		`{"type":"http","name":"web","url":`+strconv.Quote(web.URL)+`,"headers":[]},`+
		`{"name":"mine","command":"/nonexistent/should-not-start","args":[],"env":[]}]}}`)
	r = p.response(t, 2)
	sid, _ := r["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v; stderr:\n%s", r, p.stderr)
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"use the editor's tools"}]}}`)
	if r := p.response(t, 3); r["result"] == nil || r["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("the prompt: %v; stderr:\n%s", r, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	first := string(reqs[0].Body)
	for _, tool := range []string{"mcp__ed__echo", "mcp__web__add", "mcp__mine__echo"} {
		if !strings.Contains(first, `"`+tool+`"`) {
			t.Errorf("the first request does not offer %s; stderr:\n%s", tool, p.stderr)
		}
	}
	var body struct {
		Input []struct {
			CallID string `json:"call_id"`
			Output json.RawMessage
		}
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	for _, it := range body.Input {
		outputs[it.CallID] = string(it.Output)
	}
	if !strings.Contains(outputs["call_ed"], "from the editor's server") || !strings.Contains(outputs["call_web"], `\"sum\":42`) {
		t.Errorf("the tool outputs the model got: %q; want the stdio server's echo and the HTTP server's sum", outputs)
	}
	second := string(reqs[1].Body)
	if strings.Contains(second, "should-not-start") {
		t.Errorf("the client's server named like config's was started")
	}
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("agent acp after its input ended: %v; stderr:\n%s", err, p.stderr)
	}
}
