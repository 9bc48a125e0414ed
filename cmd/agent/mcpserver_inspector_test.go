package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/headless/mcpserver"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// inspectorDir holds, once `npm ci --omit=optional` ran there (.ci/run
// does), the MCP inspector from npm.
const inspectorDir = "testdata/inspector"

// TestMCPInspector drives `agent mcp-server` with an MCP client no one
// here wrote, the MCP inspector's CLI: it lists the tools and calls the
// start tool, whose answer comes from the fake Responses server.
func TestMCPInspector(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	cli := filepath.Join(inspectorDir, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "cli.js")
	if err == nil {
		_, err = os.Stat(cli)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the MCP inspector test: %v (.ci/run installs node and the inspector)", err)
		}
		t.Skipf("skipped: node or the MCP inspector is absent (%v); install it with: (cd cmd/agent/%s && npm ci --omit=optional)", err, inspectorDir)
	}
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hello from agent over MCP")})
	home := writeConfig(t, srv.URL, "")
	inspect := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		argv := append([]string{cli, "--cli", "-e", "AGENT_HOME=" + home, "-e", "FAKE_KEY=" + fakeKey, bin, "mcp-server"}, args...)
		cmd := exec.CommandContext(ctx, node, argv...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		var stderr syncbuf.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, &stderr)
		}
		return out
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if out := inspect("--method", "tools/list"); json.Unmarshal(out, &list) != nil || len(list.Tools) != 2 {
		t.Fatalf("tools/list: %s", out)
	}
	if list.Tools[0].Name != mcpserver.ToolStart || list.Tools[1].Name != mcpserver.ToolReply {
		t.Errorf("tools %+v", list.Tools)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent mcpserver.Output `json:"structuredContent"`
		IsError           bool             `json:"isError"`
	}
	out := inspect("--method", "tools/call", "--tool-name", mcpserver.ToolStart, "--tool-arg", "prompt=say hello", "--tool-arg", "cwd="+t.TempDir())
	if err := json.Unmarshal(out, &res); err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("tools/call: %s", out)
	}
	if res.Content[0].Text != "hello from agent over MCP" || res.StructuredContent.SessionID == "" {
		t.Errorf("tools/call answered %s", out)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "say hello") {
		t.Errorf("%d model requests; want 1 with the prompt", len(reqs))
	}
}
