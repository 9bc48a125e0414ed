package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestToolOutputTokenLimit: a command that prints 24 KB reaches the model
// cut to tool_output_token_limit (50 tokens, 60 with Codex's allowance:
// 240 bytes), its head and tail kept and the cut said.
func TestToolOutputTokenLimit(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.ExecCallStep("seq 1 5000"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	})
	bin := buildAgent(t)
	home := writeConfig(t, srv.URL, "tool_output_token_limit = 50\n")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "-s", "danger-full-access", "count")
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\n%s", err, stderr)
	}
	out := agenttest.CallOutput(t, srv)
	marker := strings.Index(out, " tokens truncated…")
	if marker < 0 || !strings.HasPrefix(out, "Wall time: ") || !strings.HasSuffix(out, "\n4999\n5000\n") || len(out) > 240+len("…99999 tokens truncated…") {
		t.Errorf("output sent (%d bytes) is not cut to the budget with head, tail and the cut said:\n%s", len(out), out)
	}
}

// TestCodexToolsOffered: the request offers view_image and the hosted
// web_search as Codex 0.169 does, web_search following its config key.
func TestCodexToolsOffered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // the web_search tool, "" none
	}{
		{nil, `{"external_web_access":false,"type":"web_search"}`},
		{[]string{"-c", `web_search="live"`}, `{"external_web_access":true,"type":"web_search"}`},
		{[]string{"-c", `web_search="disabled"`}, ""},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		if r := runCLI(t, srv, runOpts{}, append(append([]string{"exec"}, tc.args...), "hi")...); r.code != 0 {
			t.Fatal(r.stderr)
		}
		var search, view string
		for _, tl := range srv.Requests()[0].JSON["tools"].([]any) {
			b, _ := json.Marshal(tl)
			if m := tl.(map[string]any); m["type"] == "web_search" {
				search = string(b)
			} else if m["name"] == "view_image" {
				view = string(b)
			}
		}
		if search != tc.want {
			t.Errorf("%v: web_search tool %s; want %s", tc.args, search, tc.want)
		}
		const codexView = `{"description":"View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.","name":"view_image","parameters":{"additionalProperties":false,"properties":{"path":{"description":"Local filesystem path to an image file.","type":"string"}},"required":["path"],"type":"object"},"strict":false,"type":"function"}`
		if view != codexView {
			t.Errorf("view_image tool %s; want Codex's %s", view, codexView)
		}
	}
}

// TestViewImageAttaches: the model's view_image call on a PNG in the
// workspace sends the image back as an input_image; a text file gets a
// failed call the model reads.
func TestViewImageAttaches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("text"), 0o600)
	for _, tc := range []struct{ path, want string }{
		{"shot.png", `"image_url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `","type":"input_image"`},
		{"notes.txt", `view_image: ` + filepath.Join(dir, "notes.txt") + ` is not an image (text/plain`},
	} {
		args, _ := json.Marshal(map[string]string{"path": tc.path})
		srv := rt.NewServer(t, rt.Script{
			rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "view_image", string(args)), rt.Completed("r1")),
			rt.Reply("r2", "m2", "seen"),
		})
		r := runCLI(t, srv, runOpts{}, "exec", "-C", dir, "look")
		if r.code != 0 || len(srv.Requests()) != 2 {
			t.Fatalf("%s: exit %d\n%s", tc.path, r.code, r.stderr)
		}
		if body := string(srv.Requests()[1].Body); !strings.Contains(body, tc.want) {
			t.Errorf("%s: the second request lacks %s:\n%.600s", tc.path, tc.want, body)
		}
	}
}

// TestExecWebSearchItem: a web_search_call the server ran is a search line
// on stderr, Codex's web_search item in --json, and stays in history.
func TestExecWebSearchItem(t *testing.T) {
	t.Parallel()
	search := rt.OutputItemDone(map[string]any{"type": "web_search_call", "id": "ws_1", "status": "completed",
		"action": map[string]any{"type": "search", "query": "weather in Paris"}})
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r1"), search, rt.MessageDone("m1", "sunny"), rt.Completed("r1"))})
	r := runCLI(t, srv, runOpts{}, "exec", "weather?")
	// (the test server writes the item's keys sorted, and agent passes
	// the action on as the server wrote it)
	if r.code != 0 || !strings.Contains(r.stderr, "web search: weather in Paris\n") {
		t.Errorf("exit %d; stderr lacks the search line:\n%s", r.code, r.stderr)
	}
	srv = rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r1"), search, rt.MessageDone("m1", "sunny"), rt.Completed("r1"))})
	r = runCLI(t, srv, runOpts{}, "exec", "--json", "weather?")
	want := `{"type":"item.completed","item":{"id":"item_0","type":"web_search","query":"weather in Paris","action":{"query":"weather in Paris","type":"search"}}}`
	if r.code != 0 || !strings.Contains(r.stdout, want+"\n") {
		t.Errorf("exit %d; --json lacks %s:\n%s", r.code, want, r.stdout)
	}
}

// TestExecRequestUserInput: in exec a request_user_input call is answered
// at once with a failed call saying nobody can answer; the turn goes on.
func TestExecRequestUserInput(t *testing.T) {
	t.Parallel()
	args := `{"questions":[{"id":"db","header":"Database","question":"Which one?","options":[{"label":"Postgres (Recommended)","description":"d"},{"label":"SQLite","description":"d"}]}]}`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "request_user_input", args), rt.Completed("r1")),
		rt.Reply("r2", "m2", "assumed Postgres"),
	})
	r := runCLI(t, srv, runOpts{}, "exec", "set up the db")
	if r.code != 0 || r.stdout != "assumed Postgres\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if out := agenttest.CallOutput(t, srv); !strings.Contains(out, "not supported in exec mode: no user is there to answer") {
		t.Errorf("the model was told %q", out)
	}
	var offered bool
	for _, tl := range srv.Requests()[0].JSON["tools"].([]any) {
		offered = offered || tl.(map[string]any)["name"] == "request_user_input"
	}
	if !offered {
		t.Error("request_user_input is not offered, as Codex 0.169's exec offers it")
	}
}
