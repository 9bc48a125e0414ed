package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/session"
)

// TestSlashPopup: "/" lists the commands with a line each, 8 rows at a
// time; typing filters (prefix, then fuzzy); Down and Enter run the
// highlighted one; Tab completes; Esc closes the popup and keeps the text.
func TestSlashPopup(t *testing.T) {
	t.Parallel()
	m := newLiveModel(t, Options{Commands: Commands{Status: func() []string { return []string{"config: here"} }}})
	typeText(m, "/")
	view := plain(m.View())
	if !strings.Contains(view, "› /model [NAME]") || !strings.Contains(view, "choose the model") {
		t.Fatalf("no popup of commands:\n%s", view)
	}
	if n := strings.Count(view, "\n  /") + strings.Count(view, "\n› /") - 1; n != popupRows { // less the composer
		t.Errorf("%d rows shown, want %d:\n%s", n, popupRows, view)
	}
	typeText(m, "sta")
	if view = plain(m.View()); !strings.Contains(view, "› /status") {
		t.Errorf("/sta does not highlight /status:\n%s", view)
	}
	m.setComposer("/perms") // fuzzy: p-e-r-m-s in order
	m.Update(nil)
	if view = plain(m.View()); !strings.Contains(view, "› /permissions") {
		t.Errorf("/perms does not find /permissions:\n%s", view)
	}
	send(m, press("esc"))
	if view = plain(m.View()); strings.Contains(view, "/permissions") || m.composer.Value() != "/perms" {
		t.Errorf("esc: popup still shown or text lost (%q):\n%s", m.composer.Value(), view)
	}
	m.setComposer("/mo")
	m.Update(nil)
	send(m, press("tab"))
	if got := m.composer.Value(); got != "/model " {
		t.Errorf("tab completed to %q", got)
	}
	m.setComposer("/")
	m.Update(nil)
	for _, msg := range runCmd(send(m, press("up"), press("enter"))) { // wraps to the last: /quit
		m.Update(msg)
	}
	m.setComposer("/stat")
	m.Update(nil)
	for _, msg := range runCmd(send(m, press("enter"))) {
		m.Update(msg)
	}
	if view = plain(m.View()); !strings.Contains(view, "config: here") {
		t.Errorf("enter on /stat did not run /status:\n%s", view)
	}
}

// TestEveryCodexCommandAnswers: each of Codex 0.169's 53 commands (and
// /quit) runs or answers one line; none is an unknown command.
func TestEveryCodexCommandAnswers(t *testing.T) {
	t.Parallel()
	codex := strings.Fields(`/model /fast /presets /ide /permissions /keymap /vim /experimental /approve /memories /skills
/import /hooks /review /rename /new /resume /archive /delete /fork /worktree /init /compact /config
/recap /plan /voice /goal /agents /side /copy /export /raw /tui /diff /mention /daemon /status
/warnings /cd /pwd /title /statusline /theme /pets /mcp /logout /feedback /ps /stop /clear
/subagents /exit /quit`)
	if len(codex) != 54 {
		t.Fatalf("%d commands listed, want 53 and /quit", len(codex))
	}
	m, _ := newTestModel(t, Options{})
	for _, name := range codex {
		c, ok := m.lookup(name)
		if !ok {
			t.Errorf("%s is an unknown command", name)
			continue
		}
		if c.run == nil && (!strings.HasPrefix(c.absent, name) || strings.Contains(c.absent, "\n") || !strings.Contains(c.absent, ";")) {
			t.Errorf("%s answers %q: want one line naming it and what to use instead", name, c.absent)
		}
	}
	runCmd(submit(m, "/ide"))
	if view := plain(m.View()); !strings.Contains(view, "/ide: agent has no IDE integration") {
		t.Errorf("/ide's line not shown:\n%s", view)
	}
}

// TestCustomPrompts: NAME.md files are /prompts:NAME in the popup, with
// their front matter's description; arguments fill $1, $ARGUMENTS and
// $NAME; a prompt missing a NAME=value, or a file with broken front
// matter, is named in one line and nothing is sent.
func TestCustomPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("fix.md", "---\ndescription: fix a file\nargument-hint: FILE=PATH [WHY]\n---\nFix $FILE because $1; all: $ARGUMENTS; cost $$5\n")
	write("hello.md", "Say hello to $1.\n")
	write("broken.md", "---\ndescription: never closed\n")
	eng := &recEngine{}
	m := newLiveModel(t, Options{Engine: eng, PromptDirs: []string{filepath.Join(dir, "none"), dir}})
	for _, msg := range runCmd(m.Init()) {
		m.Update(msg)
	}
	view := plain(m.View())
	if !strings.Contains(view, "custom prompt "+filepath.Join(dir, "broken.md")+": its front matter") {
		t.Errorf("the broken prompt is not named:\n%s", view)
	}
	typeText(m, "/prompts:f")
	if view = plain(m.View()); !strings.Contains(view, "› /prompts:fix FILE=PATH [WHY]  fix a file") {
		t.Errorf("the popup lacks the prompt:\n%s", view)
	}
	m.setComposer("/prompts:fix slow")
	for _, msg := range runCmd(send(m, press("enter"))) {
		m.Update(msg)
	}
	if view = plain(m.View()); !strings.Contains(view, "prompt fix: missing FILE=… (usage: /prompts:fix FILE=PATH [WHY])") || m.turn != nil {
		t.Errorf("a missing FILE= was not refused in one line (turn %v):\n%s", m.turn != nil, view)
	}
	m.setComposer(`/prompts:fix FILE=a.go "it is slow" twice`)
	runCmd(send(m, press("enter")))
	want := "Fix a.go because it is slow; all: it is slow twice; cost $5\n"
	if m.turn == nil || m.hist.entries[len(m.hist.entries)-1] != `/prompts:fix FILE=a.go "it is slow" twice` {
		t.Fatalf("the prompt did not start a turn")
	}
	if view = plain(m.View()); !strings.Contains(view, "› "+strings.TrimSpace(want)) {
		t.Errorf("the expanded prompt %q is not what was sent:\n%s", want, view)
	}
	if _, err := expandPrompt("x", `"open`); err == nil {
		t.Error("an open quote expanded")
	}
}

// recEngine is an engine that records nothing and never runs.
type recEngine struct{ nopEngine }

// TestFileIndexRespectsIgnores: the @ index leaves out .git, what
// .gitignore, .ignore (in any directory, relative to it) and
// .git/info/exclude ignore, and keeps what a "!" rule re-includes.
func TestFileIndexRespectsIgnores(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		".gitignore":        "*.log\nbuild/\n!keep.log\n",
		".ignore":           "secret.txt\n",
		".git/info/exclude": "local.txt\n",
		".git/config":       "",
		"main.go":           "",
		"app.log":           "",
		"keep.log":          "",
		"secret.txt":        "",
		"local.txt":         "",
		"build/out.bin":     "",
		"src/build":         "", // a file called build: build/ is for directories
		"src/.gitignore":    "gen/\n",
		"src/gen/x.go":      "",
		"src/lib/util.go":   "",
		"docs/gen/y.md":     "", // src's rule does not reach docs
	}
	for f, text := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := buildFileIndex(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", ".ignore", "docs/gen/y.md", "keep.log", "main.go", "src/.gitignore", "src/build", "src/lib/util.go"}
	if diff := cmp.Diff(want, ix.paths); diff != "" {
		t.Errorf("indexed (-want +got):\n%s", diff)
	}
	if got := ix.search("utl", 8); len(got) == 0 || got[0] != "src/lib/util.go" {
		t.Errorf("search utl = %q", got)
	}
}

// TestMentionPopup: "@" searches the working directory's files (the index
// is built off the UI's goroutine); Tab inserts the path in place of the
// query.
func TestMentionPopup(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"cmd/agent/main.go", "README.md"} {
		_ = os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m := newLiveModel(t, Options{Dir: root})
	typeText(m, "look at ")
	var pending []tea.Msg
	pending = append(pending, runCmd(send(m, press("@")))...)
	for len(pending) > 0 { // index built, then searched
		msg := pending[0]
		pending = pending[1:]
		_, cmd := m.Update(msg)
		pending = append(pending, runCmd(cmd)...)
	}
	for _, k := range "mgo" {
		pending = append(pending, runCmd(send(m, press(string(k))))...)
	}
	for _, msg := range pending {
		m.Update(msg)
	}
	if view := plain(m.View()); !strings.Contains(view, "› cmd/agent/main.go") {
		t.Fatalf("@mgo does not offer cmd/agent/main.go:\n%s", view)
	}
	send(m, press("tab"))
	if got := m.composer.Value(); got != "look at cmd/agent/main.go " {
		t.Errorf("composer = %q", got)
	}
}

// TestResumePicker: /resume lists this directory's sessions newest first
// with their age, leaves out the running one, filters by typing, and Tab
// asks for every directory's.
func TestResumePicker(t *testing.T) {
	t.Parallel()
	var asked []bool
	var resumed string
	m := newLiveModel(t, Options{SessionID: func() string { return "running" }, Commands: Commands{
		Resume: func(_ context.Context, id string) (Resumed, error) {
			resumed = id
			return Resumed{Engine: nopEngine{}}, nil
		},
		Sessions: func(_ context.Context, all bool) ([]SessionInfo, error) {
			asked = append(asked, all)
			now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
			return []SessionInfo{
				{ID: "running", Title: "this chat", Updated: now},
				{ID: "s2", Title: "fix the parser", Updated: now.Add(-2 * time.Hour), Cwd: "/a"},
				{ID: "s1", Title: "write docs", Updated: now.Add(-72 * time.Hour), Cwd: "/a"},
			}, nil
		}}})
	for _, msg := range runCmd(submit(m, "/resume")) {
		m.Update(msg)
	}
	view := plain(m.View())
	if strings.Contains(view, "this chat") || !strings.Contains(view, "› fix the parser  2h ago") || !strings.Contains(view, "write docs      3d ago") {
		t.Fatalf("picker:\n%s", view)
	}
	for _, k := range "docs" {
		send(m, press(string(k)))
	}
	for _, msg := range runCmd(send(m, press("enter"))) {
		m.Update(msg)
	}
	if resumed != "s1" {
		t.Errorf("resumed %q, want s1", resumed)
	}
	for _, msg := range runCmd(submit(m, "/resume")) {
		m.Update(msg)
	}
	for _, msg := range runCmd(send(m, press("tab"))) {
		m.Update(msg)
	}
	if diff := cmp.Diff([]bool{false, false, true}, asked); diff != "" {
		t.Errorf("asked for all (-want +got):\n%s", diff)
	}
	if view = plain(m.View()); !strings.Contains(view, "2h ago · /a") {
		t.Errorf("the all-directories picker does not show directories:\n%s", view)
	}
}

// TestModelPickerWithEffort: /model lists the provider's models with the
// current one marked; a model with reasoning efforts asks for one, and
// the choice reaches the Model hook as name and effort.
func TestModelPickerWithEffort(t *testing.T) {
	t.Parallel()
	var got []string
	m := newLiveModel(t, Options{Model: "gpt-a", Commands: Commands{
		Model: func(_ context.Context, name, effort string) (Engine, error) {
			got = append(got, name, effort)
			return nil, nil
		},
		Models: func(context.Context) ([]ModelChoice, error) {
			return []ModelChoice{{Name: "gpt-a"}, {Name: "gpt-b", Efforts: []string{"low", "medium", "high"}}}, nil
		}}})
	for _, msg := range runCmd(submit(m, "/model")) {
		m.Update(msg)
	}
	if view := plain(m.View()); !strings.Contains(view, "› gpt-a  current") || !strings.Contains(view, "gpt-b  effort: low, medium, high") {
		t.Fatalf("model picker:\n%s", view)
	}
	send(m, press("down"), press("enter"))
	if view := plain(m.View()); !strings.Contains(view, "Reasoning effort for gpt-b") {
		t.Fatalf("no effort picker:\n%s", view)
	}
	for _, msg := range runCmd(send(m, press("down"), press("enter"))) {
		m.Update(msg)
	}
	if diff := cmp.Diff([]string{"gpt-b", "medium"}, got); diff != "" {
		t.Errorf("Model hook got (-want +got):\n%s", diff)
	}
	if view := plain(m.View()); !strings.Contains(view, "model: gpt-b · reasoning effort: medium") {
		t.Errorf("no confirmation:\n%s", view)
	}
}

// TestEnterRunsWhatWasTyped: Enter in the / popup runs the command typed
// (or the row chosen with the arrows, or the one the typed name begins),
// never a fuzzy match of something else: /rc beside a /prompts:ticket is
// Codex's "Unrecognized command" line, nothing sent and the text kept.
// Text whose first word holds another slash (an absolute path, a URL
// after a slash) is a message, as Codex 0.171 sends it.
func TestEnterRunsWhatWasTyped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"explain.md", "ticket.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("Explain the file $1 to a newcomer.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	enter := func(m *Model, text string) {
		m.setComposer(text)
		m.Update(nil)
		for _, msg := range runCmd(send(m, press("enter"))) {
			m.Update(msg)
		}
	}
	for _, typed := range []string{"/rc", "/xplain", "/frobnicate now"} {
		e := &inputEngine{}
		m := newLiveModel(t, Options{Engine: e, PromptDirs: []string{dir}})
		for _, msg := range runCmd(m.Init()) {
			m.Update(msg)
		}
		enter(m, typed)
		name := strings.Fields(typed)[0]
		view := plain(m.View())
		if m.turn != nil || strings.Contains(view, "newcomer") {
			t.Errorf("%s started a turn:\n%s", typed, view)
		}
		if want := `Unrecognized command '` + name + `'. Type "/" for a list of supported commands.`; !strings.Contains(view, want) {
			t.Errorf("%s: view lacks %q:\n%s", typed, want, view)
		}
		if got := m.composer.Value(); got != typed {
			t.Errorf("%s: the composer holds %q, want the text kept", typed, got)
		}
		if got := e.sent(); len(got) != 0 {
			t.Errorf("%s: the engine got %q, want nothing sent", typed, got)
		}
	}
	for _, typed := range []string{"/usr/bin/env is where?", "/usr/bin/env", "/https://example.com/x"} {
		e := &inputEngine{}
		m := newLiveModel(t, Options{Engine: e, PromptDirs: []string{dir}})
		enter(m, typed)
		if view := plain(m.View()); !strings.Contains(view, "› "+typed) || m.composer.Value() != "" {
			t.Errorf("%q was not sent as a message:\n%s", typed, view)
		}
		if got := e.sent(); !slices.Equal(got, []string{typed}) {
			t.Errorf("%q: the engine got %q, want the text as it was typed", typed, got)
		}
	}
	m := newLiveModel(t, Options{Engine: &recEngine{}, PromptDirs: []string{dir}, Commands: Commands{Status: func() []string { return []string{"config: here"} }}})
	enter(m, "/stat")
	if view := plain(m.View()); !strings.Contains(view, "config: here") {
		t.Errorf("/stat did not run /status:\n%s", view)
	}
}

// TestFileIndexParts: a large tree's index arrives in parts while it is
// walked, the first at firstPartial files, each a prefix of the whole, so
// the @ search answers before the walk ends.
func TestFileIndexParts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 5000
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i%50))
		if i < 50 {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.go", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var parts []*fileIndex
	ix, err := buildFileIndex(context.Background(), root, func(p *fileIndex) { parts = append(parts, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.paths) != n || len(parts) != 2 || len(parts[0].paths) != firstPartial || len(parts[1].paths) != 2*firstPartial {
		t.Fatalf("index of %d files in parts of %v; want %d files in parts of %d and %d", len(ix.paths), partSizes(parts), n, firstPartial, 2*firstPartial)
	}
	for _, p := range parts {
		if !slices.Equal(p.paths, ix.paths[:len(p.paths)]) || len(p.search("f00", mentionRows)) == 0 {
			t.Errorf("part of %d files is not a searchable prefix of the index", len(p.paths))
		}
	}
}

func partSizes(parts []*fileIndex) []int {
	var out []int
	for _, p := range parts {
		out = append(out, len(p.paths))
	}
	return out
}

// TestMentionAnswersWhileIndexing: the @ popup shows matches from the part
// of the tree walked so far, and keeps the index coming.
func TestMentionAnswersWhileIndexing(t *testing.T) {
	t.Parallel()
	m := newLiveModel(t, Options{Dir: t.TempDir()})
	typeText(m, "see @main")
	m.pop.kind, m.pop.query, m.pop.building = popupMention, "main", true
	m.pop.filesCh = make(chan tea.Msg, 1)
	part := &fileIndex{paths: []string{"cmd/agent/main.go"}, lower: []string{"cmd/agent/main.go"}}
	_, cmd := m.Update(filesMsg{ix: part, partial: true})
	m.pop.filesCh <- filesMsg{ix: part} // the end, read by the command re-armed
	pending := runCmd(cmd)
	for len(pending) > 0 {
		msg := pending[0]
		pending = pending[1:]
		_, cmd := m.Update(msg)
		pending = append(pending, runCmd(cmd)...)
	}
	if view := plain(m.View()); !strings.Contains(view, "cmd/agent/main.go") {
		t.Fatalf("a part of the index gives no match:\n%s", view)
	}
	if m.pop.building {
		t.Error("the index's end did not arrive after its part")
	}
}

// inputEngine records the input of each turn it runs.
type inputEngine struct {
	nopEngine
	mu     sync.Mutex
	inputs []string
}

func (e *inputEngine) Turn(_ context.Context, input string, _ func(session.Event)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.inputs = append(e.inputs, input)
	return nil
}

// sent is what the turns got, in order.
func (e *inputEngine) sent() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.inputs)
}
