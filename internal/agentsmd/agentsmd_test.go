package agentsmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/agentsmd"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	write(t, filepath.Join(root, "AGENTS.md"), "root rules")
	write(t, filepath.Join(root, "a", "AGENTS.md"), "a rules (shadowed)")
	write(t, filepath.Join(root, "a", "AGENTS.override.md"), "a override")
	write(t, filepath.Join(root, "a", "b", "NOTES.md"), "b fallback")
	write(t, filepath.Join(home, "AGENTS.md"), "global")
	cwd := filepath.Join(root, "a", "b")

	doc, err := agentsmd.Discover(cwd, agentsmd.Options{Home: home, Fallbacks: []string{"NOTES.md"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "global" + agentsmd.Separator + "root rules\n\na override\n\nb fallback"
	if doc.Text != want {
		t.Errorf("Text = %q; want %q", doc.Text, want)
	}
	wantFiles := []string{filepath.Join(home, "AGENTS.md"), filepath.Join(root, "AGENTS.md"),
		filepath.Join(root, "a", "AGENTS.override.md"), filepath.Join(cwd, "NOTES.md")}
	if diff := cmp.Diff(wantFiles, doc.Files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	msg := doc.Message(cwd)
	if !strings.HasPrefix(msg, "# AGENTS.md instructions for "+cwd+"\n\n<INSTRUCTIONS>\n") || !strings.HasSuffix(msg, "\n</INSTRUCTIONS>") {
		t.Errorf("Message = %q", msg)
	}
}

func TestDiscoverCapAndNoRoot(t *testing.T) {
	dir := t.TempDir() // no .git above a temp dir: only cwd is read
	write(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("x", 40000))
	doc, err := agentsmd.Discover(dir, agentsmd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Text) != agentsmd.DefaultMaxBytes || !doc.Truncated {
		t.Errorf("len = %d truncated = %v; want the 32 KiB cap", len(doc.Text), doc.Truncated)
	}
	empty, err := agentsmd.Discover(t.TempDir(), agentsmd.Options{})
	if err != nil || empty.Text != "" || len(empty.Files) != 0 {
		t.Errorf("empty dir = %+v, %v", empty, err)
	}
}
