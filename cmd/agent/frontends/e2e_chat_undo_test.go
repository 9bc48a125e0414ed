package frontends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatUndoAndRewind: in the chat, /undo puts back the file the
// last turn's patch changed; /rewind picks a turn from a list and cuts the
// conversation back to before it: the next request sends neither that
// turn nor the later one.
func TestE2EChatUndoAndRewind(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.PatchStep("call_1", "*** Begin Patch\n*** Update File: a.txt\n@@\n-v1\n+v2\n*** End Patch\n"), rt.Completed("r1")),
		rt.Reply("r1b", "m1b", "edited it"),
		rt.Reply("r2", "m2", "answer two"),
		rt.Reply("r3", "m3", "answer three"),
		rt.Reply("r4", "m4", "answer four"),
	})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v1\n"), 0o644)
	c := startChat(t, bin, home, dir, "-s", "workspace-write", "-a", "never")
	c.send("edit a")
	c.waitFor("edited it")
	c.waitIdle()
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "v2\n" {
		t.Fatalf("the patch did not run: a.txt = %q", b)
	}
	c.send("/undo")
	c.waitFor("turn 1 undone", "restored a.txt")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "v1\n" {
		t.Errorf("after /undo a.txt = %q, want v1", b)
	}
	c.send("question two")
	c.waitFor("answer two")
	c.waitIdle()
	c.send("question three")
	c.waitFor("answer three")
	c.waitIdle()
	c.send("/rewind")
	c.waitFor("Rewind to before which turn?", "2. question two", "1. edit a")
	c.keys("-l", "question two")
	c.keys("Enter")
	c.waitFor("Rewind to before turn 2: restore", "conversation only")
	c.keys("Down")
	c.keys("Enter")
	c.waitFor("conversation rewound to before turn 2")
	c.send("question four")
	c.waitFor("answer four")
	c.waitIdle()
	reqs := srv.Requests()
	msgs, err := rt.InputMessages(reqs[len(reqs)-1].Body)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, strings.Join(m.Text, " "))
	}
	got := strings.Join(texts, " | ")
	if !strings.Contains(got, "edit a") || strings.Contains(got, "question two") || strings.Contains(got, "answer three") {
		t.Errorf("the request after /rewind sends: %s", got)
	}
}
