package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/hooks"
	"github.com/agentcli/agent/tools"
)

// TestPermissionRequestHookDecides: under the untrusted policy every
// command asks; a PermissionRequest hook that denies keeps the command
// from running without asking the user, and the model sees its message;
// one that allows runs it without asking; one that says nothing leaves
// the question to the user. The hook hears the call as Codex sends it.
func TestPermissionRequestHookDecides(t *testing.T) {
	for _, tc := range []struct {
		name, hook string
		ran, asked bool
		output     string
	}{
		{name: "deny", hook: `cat > perm.json; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no files today"}}}'`,
			output: "no files today"},
		{name: "allow", hook: `cat > perm.json; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`, ran: true},
		{name: "silent", hook: `cat > perm.json`, ran: true, asked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			asked := false
			approve := func(context.Context, tools.ApprovalRequest) tools.Decision {
				asked = true
				return tools.Decision{Kind: tools.ApproveOnce}
			}
			h := newHarness(t, rt.Script{
				rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "touch ran.txt"), rt.Completed("r1")),
				rt.Reply("r2", "m2", "ok"),
			}, withTools(t, dir, tools.PolicyUntrusted, approve),
				withHooks(t, dir, map[hooks.Event]string{hooks.PermissionRequest: tc.hook}))
			if err := h.turn(t, "touch it"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran.txt")); (err == nil) != tc.ran {
				t.Errorf("the command ran: %v, want %v", err == nil, tc.ran)
			}
			if asked != tc.asked {
				t.Errorf("the user was asked: %v, want %v", asked, tc.asked)
			}
			if out := outputOf(t, h.srv.Requests()[1], "call_1"); !strings.Contains(out, tc.output) {
				t.Errorf("the model saw %q, want it to contain %q", out, tc.output)
			}
			var in map[string]any
			data, _ := os.ReadFile(filepath.Join(dir, "perm.json"))
			if err := json.Unmarshal(data, &in); err != nil {
				t.Fatal(err, string(data))
			}
			if in["hook_event_name"] != "PermissionRequest" || in["tool_name"] != "Bash" || in["session_id"] != "sess-1" {
				t.Errorf("stdin %v", in)
			}
			if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "touch ran.txt" {
				t.Errorf("tool_input %v", in["tool_input"])
			}
		})
	}
}

// TestCompactHooksRunAroundCompaction: /compact runs PreCompact, then
// PostCompact once the history is replaced, each once with trigger "manual"; the automatic compaction runs them with
// trigger "auto"; a compaction refused as too short runs neither.
func TestCompactHooksRunAroundCompaction(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "order")
	// Each hook notes the event and trigger its stdin names.
	note := func(string) string {
		return `in=$(cat); for f in '"hook_event_name":"PreCompact"' '"hook_event_name":"PostCompact"' '"trigger":"manual"' '"trigger":"auto"'; do ` +
			`case "$in" in *"$f"*) printf '%s ' "$f" >> ` + log + `;; esac; done; echo >> ` + log
	}
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r2", "m2", "answer two"),
		rt.Reply("s1", "ms1", "the summary"),
		rt.Stream(rt.Created("r3"), rt.MessageDone("m3", "big answer"), rt.CompletedUsage("r3", 9000, 0, 1000, 0)),
		rt.Reply("s2", "ms2", "the second summary"),
		rt.Reply("r4", "m4", "after"),
	}, withHooks(t, dir, map[hooks.Event]string{hooks.PreCompact: note("PreCompact"), hooks.PostCompact: note("PostCompact")}),
		func(_ *provider.Info, o *session.Options) { o.AutoCompactTokens = 5000 })
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err == nil {
		t.Fatal("a compaction of nothing succeeded")
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("a refused compaction ran hooks (stat: %v)", err)
	}
	for _, q := range []string{"first question", "second question"} {
		if err := h.turn(t, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "third question"); err != nil { // fills the window
		t.Fatal(err)
	}
	if err := h.turn(t, "fourth question"); err != nil { // compacts first
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	pre, post := `"hook_event_name":"PreCompact" `, `"hook_event_name":"PostCompact" `
	manual, auto := `"trigger":"manual" `, `"trigger":"auto" `
	want := pre + manual + "\n" + post + manual + "\n" + pre + auto + "\n" + post + auto + "\n"
	if string(b) != want {
		t.Fatalf("hooks ran %q, want %q", b, want)
	}
	if n := len(h.srv.Requests()); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}
