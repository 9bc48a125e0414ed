package mantree_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/agentcli/agent/internal/mantree"
)

// sampleTree has what cobra/doc prints: persistent flags on the root
// inherited two levels down, shorthands, a deprecated shorthand, string,
// bool, int and repeatable flags, a no-option default, hidden and
// deprecated flags and commands, a command whose only flags are hidden,
// a group with no run of its own, examples, and cobra's completion
// command.
func sampleTree() *cobra.Command {
	run := func(*cobra.Command, []string) error { return nil }
	root := &cobra.Command{Use: "agent [PROMPT]", Short: "A coding agent", Long: "Talks to a model.\n\nAnd runs tools.", RunE: run}
	root.PersistentFlags().StringP("model", "m", "", "model to use")
	root.PersistentFlags().StringArrayP("config", "c", nil, "override a config value; repeatable")
	root.Flags().Bool("search", false, "let the model search")
	exec := &cobra.Command{Use: "exec [PROMPT]", Short: "Run one turn", Example: "  agent exec 'fix it'\n  agent exec -", RunE: run}
	exec.Flags().String("color", "auto", `"always", "never" or "auto"`)
	exec.Flags().Lookup("color").NoOptDefVal = "always"
	exec.Flags().IntP("timeout", "t", 30, "seconds")
	exec.Flags().BoolP("json", "j", false, "JSON events")
	_ = exec.Flags().MarkShorthandDeprecated("json", "use --json")
	exec.Flags().Bool("old", false, "gone")
	_ = exec.Flags().MarkDeprecated("old", "it did nothing")
	exec.Flags().Bool("secret", false, "internal")
	_ = exec.Flags().MarkHidden("secret")
	exec.PersistentFlags().String("sandbox", "read-only", "sandbox policy")
	resume := &cobra.Command{Use: "resume [ID]", Short: "Resume a turn", RunE: run}
	exec.AddCommand(resume)
	mcp := &cobra.Command{Use: "mcp", Short: "Manage MCP servers"}
	list := &cobra.Command{Use: "list", Short: "List them", RunE: run, DisableFlagsInUseLine: true}
	quiet := &cobra.Command{Use: "quiet", Short: "Only hidden flags", RunE: run}
	quiet.Flags().Bool("x", false, "hidden")
	_ = quiet.Flags().MarkHidden("x")
	mcp.AddCommand(list, quiet)
	hidden := &cobra.Command{Use: "debug", Short: "Hidden", Hidden: true, RunE: run}
	gone := &cobra.Command{Use: "old", Short: "Deprecated", Deprecated: "use exec", RunE: run}
	root.AddCommand(exec, mcp, hidden, gone)
	root.DisableAutoGenTag = true
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

// TestPagesSameAsCobraDoc: the man pages agent-man writes from the tree
// sent as JSON are byte for byte those cobra/doc writes from the commands
// themselves, file for file.
func TestPagesSameAsCobraDoc(t *testing.T) {
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	header := func() *doc.GenManHeader {
		return &doc.GenManHeader{Title: "AGENT", Section: "1", Source: "agent 1.2.3", Manual: "agent manual", Date: &date}
	}
	want := t.TempDir()
	if err := doc.GenManTree(sampleTree(), header(), want); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(mantree.Pages{Root: mantree.FromCobra(sampleTree())})
	if err != nil {
		t.Fatal(err)
	}
	var p mantree.Pages
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	got := t.TempDir()
	if err := doc.GenManTree(p.Root.Cobra(), header(), got); err != nil {
		t.Fatal(err)
	}
	comparePages(t, want, got)
}

func comparePages(t *testing.T, want, got string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(want, "*.1"))
	if err != nil || len(names) < 8 {
		t.Fatalf("cobra/doc wrote %d pages (%v); the sample should give at least 8", len(names), err)
	}
	gotNames, _ := filepath.Glob(filepath.Join(got, "*.1"))
	if len(gotNames) != len(names) {
		t.Errorf("pages from the tree: %d, from cobra: %d\n%v\n%v", len(gotNames), len(names), gotNames, names)
	}
	for _, n := range names {
		w, _ := os.ReadFile(n)
		g, err := os.ReadFile(filepath.Join(got, filepath.Base(n)))
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(n), err)
			continue
		}
		if string(g) != string(w) {
			t.Errorf("%s differs:\n--- from the tree\n%s\n--- from cobra\n%s", filepath.Base(n), g, w)
		}
	}
}
