package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/mcptest"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// TestResourceTools: with a server that offers resources, the model gets
// Codex 0.171's list_mcp_resources, list_mcp_resource_templates and
// read_mcp_resource, with its argument shapes; they list (one server, or
// every one) and read, answering JSON as Codex does; a server without
// resources adds none of them.
func TestResourceTools(t *testing.T) {
	plain := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	h0 := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "plain", URL: plain.URL}}})
	h0.started(t)
	for _, tl := range h0.m.Tools() {
		if strings.Contains(tl.Name(), "resource") {
			t.Errorf("a server without resources adds %s", tl.Name())
		}
	}

	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Resources: true}})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "docs", URL: srv.URL}, {Name: "plain", URL: plain.URL}}})
	h.started(t)
	specs := map[string]string{}
	for _, tl := range h.m.Tools() {
		specs[tl.Name()] = string(tl.Spec())
	}
	for name, want := range map[string][]string{
		"list_mcp_resources":          {`"server"`, `"cursor"`, `"additionalProperties":false`},
		"list_mcp_resource_templates": {`"server"`, `"cursor"`},
		"read_mcp_resource":           {`"required":["server","uri"]`},
	} {
		for _, w := range want {
			if !strings.Contains(specs[name], w) {
				t.Errorf("%s's spec lacks %s: %s", name, w, specs[name])
			}
		}
	}
	type listed struct {
		Server    string           `json:"server"`
		Resources []map[string]any `json:"resources"`
		Templates []map[string]any `json:"resourceTemplates"`
		URI       string           `json:"uri"`
		Contents  []map[string]any `json:"contents"`
	}
	call := func(name, input string) listed {
		t.Helper()
		res, _ := h.call(t, name, input, nil)
		if res.Status != tools.StatusCompleted {
			t.Fatalf("%s %s: %s %q", name, input, res.Status, res.Output)
		}
		var l listed
		if err := json.Unmarshal([]byte(res.Output), &l); err != nil {
			t.Fatalf("%s: not JSON: %q", name, res.Output)
		}
		return l
	}
	for _, in := range []string{`{}`, `{"server":"docs"}`} {
		l := call("list_mcp_resources", in)
		if len(l.Resources) != 1 || l.Resources[0]["uri"] != "file:///notes.txt" || l.Resources[0]["server"] != "docs" {
			t.Errorf("list_mcp_resources %s = %+v", in, l)
		}
	}
	if l := call("list_mcp_resource_templates", `{}`); len(l.Templates) != 1 || l.Templates[0]["uriTemplate"] != "file:///logs/{day}.txt" {
		t.Errorf("list_mcp_resource_templates = %+v", l)
	}
	l := call("read_mcp_resource", `{"server":"docs","uri":"file:///notes.txt"}`)
	if l.Server != "docs" || l.URI != "file:///notes.txt" || len(l.Contents) != 1 || l.Contents[0]["text"] != "the notes" {
		t.Errorf("read_mcp_resource = %+v", l)
	}
	for in, want := range map[string]string{
		`{"server":"nope","uri":"x"}`:  `unknown MCP server "nope"`,
		`{"server":"plain","uri":"x"}`: `"plain" offers no resources`,
		`{"uri":"x"}`:                  "needs server and uri",
	} {
		if res, _ := h.call(t, "read_mcp_resource", in, nil); res.Status != tools.StatusFailed || !strings.Contains(res.Output, want) {
			t.Errorf("read_mcp_resource %s = %s %q; want failed, %q", in, res.Status, res.Output, want)
		}
	}
}
