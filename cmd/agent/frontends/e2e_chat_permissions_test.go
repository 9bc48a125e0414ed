package frontends

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatPermissionsSwitchSandbox: /permissions applies a preset's
// sandbox in the running chat, from the next turn: under workspace-write a
// command writes; after choosing Read only the next command cannot (the
// model is told the sandbox denied it, and told the new sandbox); after
// Full access one writes again, outside the workspace too.
func TestE2EChatPermissionsSwitchSandbox(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	outside := t.TempDir()
	call := func(id, cmd string) rt.Attempt {
		args, _ := json.Marshal(map[string]string{"cmd": cmd})
		return rt.Stream(rt.Created("r"+id), rt.FunctionCallDone("fc"+id, "call_"+id, "exec_command", string(args)), rt.Completed("r"+id))
	}
	srv := rt.NewServer(t, rt.Script{
		call("1", "touch before.txt"), rt.Reply("a1", "m1", "wrote before"),
		call("2", "touch after.txt"), rt.Reply("a2", "m2", "tried after"),
		call("3", "touch "+filepath.Join(outside, "free.txt")), rt.Reply("a3", "m3", "wrote free"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir)
	c.send("write before")
	c.waitFor("wrote before")
	c.waitIdle()
	if _, err := os.Stat(filepath.Join(dir, "before.txt")); err != nil {
		t.Fatalf("workspace-write did not write: %v", err)
	}

	c.keys("/permissions", "Enter")
	c.waitFor("Choose what agent may do")
	c.keys("-l", "read")
	c.waitFor("› Read only")
	c.keys("Enter")
	c.waitFor("sandbox: read-only, from the next turn")
	c.send("write after")
	c.waitFor("tried after")
	c.waitIdle()
	if _, err := os.Stat(filepath.Join(dir, "after.txt")); err == nil {
		t.Error("a command wrote after switching to read-only")
	}
	body := string(srv.Requests()[3].Body)
	for _, want := range []string{"the sandbox (read-only) denied this", `\u003csandbox_mode\u003eread-only`} {
		if !strings.Contains(body, want) && !strings.Contains(body, strings.ReplaceAll(want, `\u003c`, "<")) {
			t.Errorf("the request after the read-only command lacks %q:\n%s", want, body)
		}
	}
	c.send("/status")
	c.waitFor("sandbox: read-only")

	c.send("/permissions full-access")
	c.waitFor("sandbox: danger-full-access, from the next turn")
	c.send("write outside")
	c.waitFor("wrote free")
	if _, err := os.Stat(filepath.Join(outside, "free.txt")); err != nil {
		t.Errorf("full access did not write outside the workspace: %v", err)
	}
	c.keys("C-d")
}

// TestE2EChatModelPickerFromProvider: /model lists the provider's
// /models; a model with reasoning efforts asks for one; the next request
// uses both.
func TestE2EChatModelPickerFromProvider(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.New(rt.Script{rt.Reply("r1", "m1", "answered by the new model")},
		rt.Options{Models: []string{"test-model", "gpt-5-fake"}, OnUnexpected: func(msg string) { t.Errorf("%s", msg) }})
	srv.Start()
	t.Cleanup(srv.Close)
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.keys("/model", "Enter")
	s := c.waitFor("gpt-5-fake")
	if !regexp.MustCompile(`test-model +current`).MatchString(s) || !strings.Contains(s, "effort: low, medium, high") {
		t.Errorf("the picker does not list the provider's models with their efforts:\n%s", s)
	}
	c.keys("-l", "gpt-5-f") // the catalogue lists a gpt-5 too
	c.waitFor("› gpt-5-fake")
	c.keys("Enter")
	c.waitFor("Reasoning effort for gpt-5-fake")
	c.keys("-l", "high")
	c.waitFor("› high")
	c.keys("Enter")
	c.waitFor("model: gpt-5-fake · reasoning effort: high")
	c.send("which model")
	c.waitFor("answered by the new model")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if m, r := reqs[0].JSON["model"], reqs[0].JSON["reasoning"]; m != "gpt-5-fake" || !strings.Contains(fmt.Sprint(r), "effort:high") {
		t.Errorf("the request after /model used model %v, reasoning %v", m, r)
	}
	c.keys("C-d")
}

// TestE2EChatModelPickerPresets: on a custom provider without a /models
// list, /model offers the known presets with their efforts beside the
// configured model, as Codex lists its presets on any provider.
func TestE2EChatModelPickerPresets(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.keys("/model", "Enter")
	c.waitFor("Choose a model")
	s := c.waitFor("gpt-6.2-sol") // the list arrives after the title
	if !regexp.MustCompile(`test-model +current`).MatchString(s) || !regexp.MustCompile(`gpt-6\.2-sol +effort: low, medium`).MatchString(s) {
		t.Errorf("the picker does not start with the configured model, then Codex 0.171's first:\n%s", s)
	}
	c.keys("-l", "gpt-5.") // the catalogue's models, filtered
	s, _ = c.poll(5*time.Second, "gpt-5.3-codex")
	for _, want := range []string{`gpt-5\.5 +effort: low, medium, high`, `gpt-5\.3-codex +effort`} {
		if !regexp.MustCompile(want).MatchString(s) {
			t.Errorf("the picker lacks %q:\n%s", want, s)
		}
	}
}
