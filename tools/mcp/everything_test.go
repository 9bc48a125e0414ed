package mcp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// everythingDir holds, once `npm ci` ran there (.ci/run does), the MCP
// reference server that exercises every feature of the protocol.
const everythingDir = "../../cmd/agent/testdata/everything"

// everythingServer is the stdio config of @modelcontextprotocol/
// server-everything, skipping the test when node or the package is
// missing outside CI.
func everythingServer(t *testing.T) mcp.ServerConfig {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join(everythingDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(script)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the server-everything tests: %v (.ci/run installs it)", err)
		}
		t.Skipf("skipped: node or server-everything is absent (%v); install it with: (cd cmd/agent/testdata/everything && npm ci)", err)
	}
	return mcp.ServerConfig{Name: "everything", Command: node, Args: []string{script, "stdio"}}
}

// TestEverythingResourcesAndElicitation: against the real reference
// server, not agent's own test server: its resources are listed, its
// templates too, a listed resource reads back with contents; its
// elicitation tool, which it offers only to clients that declare
// elicitation, is there, and without a person to ask (exec) the request is
// declined and the answer the model sees says so.
func TestEverythingResourcesAndElicitation(t *testing.T) {
	srv := everythingServer(t)
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{srv}})
	h.started(t)
	call := func(name, input string) map[string]any {
		t.Helper()
		res, _ := h.call(t, name, input, nil)
		if res.Status != tools.StatusCompleted {
			t.Fatalf("%s %s: %s %q", name, input, res.Status, res.Output)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
			t.Fatalf("%s: not JSON: %q", name, res.Output)
		}
		return out
	}
	listed, _ := call("list_mcp_resources", `{"server":"everything"}`)["resources"].([]any)
	if len(listed) == 0 {
		t.Fatalf("list_mcp_resources: no resources")
	}
	first, _ := listed[0].(map[string]any)
	uri, _ := first["uri"].(string)
	if !strings.HasPrefix(uri, "demo://") || first["server"] != "everything" {
		t.Errorf("first resource %v", first)
	}
	if tpl, _ := call("list_mcp_resource_templates", `{}`)["resourceTemplates"].([]any); len(tpl) == 0 {
		t.Errorf("list_mcp_resource_templates: none")
	}
	in, _ := json.Marshal(map[string]string{"server": "everything", "uri": uri})
	read := call("read_mcp_resource", string(in))
	if contents, _ := read["contents"].([]any); len(contents) == 0 || read["uri"] != uri {
		t.Errorf("read_mcp_resource %s = %v", uri, read)
	}

	elicit := ""
	for _, tl := range h.m.Tools() {
		if strings.Contains(tl.Name(), "trigger-elicitation-request") && !strings.Contains(tl.Name(), "async") {
			elicit = tl.Name()
		}
	}
	if elicit == "" {
		var names []string
		for _, tl := range h.m.Tools() {
			names = append(names, tl.Name())
		}
		t.Fatalf("server-everything offers no elicitation tool: agent did not declare elicitation? tools: %v", names)
	}
	if res, _ := h.call(t, elicit, `{}`, nil); !strings.Contains(res.Output, "declined") {
		t.Errorf("%s without a person: %s %q; want the decline the model sees", elicit, res.Status, res.Output)
	}
}
