package tui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestFastCommand: /fast toggles the priority service tier, /fast on and
// off set it, anything else is a usage line; each says what the next turn
// asks for.
func TestFastCommand(t *testing.T) {
	t.Parallel()
	tier := ""
	m, _ := newTestModel(t, Options{Commands: Commands{
		SetServiceTier: func(s string) { tier = s },
		ServiceTier:    func() string { return tier },
	}})
	for _, tc := range []struct{ line, tier, says string }{
		{"/fast", "priority", "Fast mode on: requests ask for the priority service tier"},
		{"/fast", "", "Fast mode off: the provider's default service tier"},
		{"/fast on", "priority", "Fast mode on"},
		{"/fast on", "priority", "Fast mode on"},
		{"/fast off", "", "Fast mode off"},
		{"/fast sometimes", "", "usage: /fast [on|off]"},
	} {
		runCmd(submit(m, tc.line))
		if tier != tc.tier {
			t.Errorf("after %q: tier %q; want %q", tc.line, tier, tc.tier)
		}
		if view := plain(m.View()); !strings.Contains(view, tc.says) {
			t.Errorf("after %q the screen lacks %q:\n%s", tc.line, tc.says, view)
		}
	}
}

// TestFastSendsPriority: the chat's /fast hook makes the next request ask
// for service_tier "priority", also in the session /new opens; off drops
// it.
func TestFastSendsPriority(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"),
		rt.Reply("r3", "m3", "three"), rt.Reply("r4", "m4", "four")})
	a, _ := testApp(t, fakeConfig(srv.URL), false)
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, first)
	defer chat.End()
	cmds := chatCommands(a, chat)
	runTurn(t, chat, "one")
	cmds.SetServiceTier(fastTier)
	runTurn(t, chat, "two")
	if err := chat.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	runTurn(t, chat, "three")
	cmds.SetServiceTier("")
	runTurn(t, chat, "four")
	var got []any
	for _, r := range srv.Requests() {
		got = append(got, r.JSON["service_tier"])
	}
	if want := []any{nil, "priority", "priority", nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("service_tier of the requests = %v; want %v", got, want)
	}
	if cmds.ServiceTier() != "" {
		t.Errorf("ServiceTier() = %q after off", cmds.ServiceTier())
	}
}

// TestTitleCommand: /title TEXT sets the terminal's title (its control
// characters dropped, so an escape cannot ride along); /title alone
// empties it.
func TestTitleCommand(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	for _, tc := range []struct{ line, title, says string }{
		{"/title fixing the build", "fixing the build", "Terminal title: fixing the build"},
		{"/title a\x1b]0;pwned\x07b", "a]0;pwnedb", "Terminal title: a]0;pwnedb"},
		{"/title", "", "Terminal title cleared."},
	} {
		cmd := submit(m, tc.line)
		if cmd == nil {
			t.Fatalf("%q: no command", tc.line)
		}
		if got, want := cmd(), tea.SetWindowTitle(tc.title)(); !reflect.DeepEqual(got, want) {
			t.Errorf("%q sets %#v; want %#v", tc.line, got, want)
		}
		if view := plain(m.View()); !strings.Contains(view, tc.says) {
			t.Errorf("after %q the screen lacks %q:\n%s", tc.line, tc.says, view)
		}
	}
}

// feed runs cmd and gives its messages to m, as the program would.
func feed(m *Model, cmd tea.Cmd) {
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
}

// TestStatuslineCommand: /statusline COMMAND runs COMMAND with the
// session as JSON on its standard input; its first line takes the place of
// the model and tokens in the status line (escape sequences dropped); a
// failing command says so there; /statusline off brings agent's own back.
func TestStatuslineCommand(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	m, _ := newTestModel(t, Options{Dir: dir, Model: "model-x", SessionID: func() string { return "sess-1" }})
	feed(m, submit(m, `/statusline cat > in.json; printf '\033[31mmy line\033[0m\nsecond\n'`))
	status := plain(m.statusLine())
	if !strings.Contains(status, "my line") || strings.Contains(status, "second") || strings.Contains(status, "model-x") {
		t.Errorf("status line %q; want the command's first line in place of the model", status)
	}
	in, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(in, &got); err != nil {
		t.Fatalf("stdin is no JSON: %v\n%s", err, in)
	}
	if got["session_id"] != "sess-1" || got["cwd"] != dir || got["model"].(map[string]any)["id"] != "model-x" {
		t.Errorf("the command read %s", in)
	}
	// The same input does not run it again; a new model does.
	if cmd := m.refreshUserStatus(); cmd != nil {
		t.Error("the command runs again for the same input")
	}
	m.opts.Model = "model-y"
	if cmd := m.refreshUserStatus(); cmd == nil {
		t.Error("a new model does not run the command")
	} else {
		feed(m, cmd)
	}
	feed(m, submit(m, "/statusline echo oops >&2; exit 3"))
	if status := plain(m.statusLine()); !strings.Contains(status, "status line command failed: exit status 3: oops") {
		t.Errorf("a failing command: status %q", status)
	}
	feed(m, submit(m, "/statusline off"))
	if status := plain(m.statusLine()); !strings.Contains(status, "model-y") || strings.Contains(status, "failed") {
		t.Errorf("after off: status %q; want agent's own", status)
	}
}
