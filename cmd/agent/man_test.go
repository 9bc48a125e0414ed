package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mantree"
)

// TestManPagesOfTheRealTree: the pages agent-man writes from agent's own
// command tree, sent as agent man sends it, are byte for byte those
// cobra/doc writes from the commands.
func TestManPagesOfTheRealTree(t *testing.T) {
	t.Parallel()
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	gen := func(root *cobra.Command) map[string]string {
		dir := t.TempDir()
		hdr := &doc.GenManHeader{Title: "AGENT", Section: "1", Source: "agent " + version, Manual: "agent manual", Date: &date}
		if err := doc.GenManTree(root, hdr, dir); err != nil {
			t.Fatal(err)
		}
		pages := map[string]string{}
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			pages[filepath.Base(n)] = string(b)
		}
		return pages
	}
	root := func() *cobra.Command {
		r := newRootCmd(t.Context(), Env{Stdout: io.Discard, Stderr: io.Discard})
		r.InitDefaultHelpCmd()
		r.InitDefaultCompletionCmd()
		r.DisableAutoGenTag = true
		return r
	}
	want, got := gen(root()), gen(mantree.FromCobra(root()).Cobra())
	if len(want) < 20 || want["agent-exec.1"] == "" {
		t.Fatalf("cobra/doc wrote %d pages: %v", len(want), slices.Sorted(maps.Keys(want)))
	}
	for name, page := range want {
		if got[name] != page {
			t.Errorf("%s from the tree differs from cobra/doc's:\n%s\n--- cobra/doc:\n%s", name, got[name], page)
		}
	}
	if len(got) != len(want) {
		t.Errorf("pages from the tree: %v; cobra/doc: %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// TestE2EMan: agent man DIR writes the pages through agent-man beside
// it; with no agent-man beside it or on PATH it fails naming the program
// and where it looked, and writes nothing.
func TestE2EMan(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if err := agenttest.CompanionBinary(mantree.ProgramName); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "man", "man1")
	cmd, stdout, stderr := agentCmd(t, bin, t.TempDir(), "man", dir)
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent man: %v\nstderr: %s", err, stderr)
	}
	if !strings.Contains(stdout.String(), "wrote the man pages into "+dir) {
		t.Errorf("stdout = %q", stdout)
	}
	page, err := os.ReadFile(filepath.Join(dir, "agent-exec.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.TH "AGENT" "1" `, `"agent ` + version + `"`, `\fB--sandbox\fP`, "OPTIONS INHERITED FROM PARENT COMMANDS", `\fB-m\fP, \fB--model\fP`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("agent-exec.1 lacks %q:\n%s", want, page)
		}
	}

	// A copy, not a link: agent looks beside the file it runs from. cp
	// writes it, not this process: a child another parallel test forks
	// while the copy is open for writing would inherit that descriptor
	// until its exec, and running the copy would fail "text file busy".
	alone := filepath.Join(t.TempDir(), "agent")
	if out, err := exec.Command("cp", bin, alone).CombinedOutput(); err != nil {
		t.Fatalf("copying agent: %v: %s", err, out)
	}
	empty := filepath.Join(t.TempDir(), "man1")
	cmd, _, stderr = agentCmd(t, alone, t.TempDir(), "man", empty)
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != exitcode.Failed ||
		!strings.Contains(stderr.String(), "agent-man was not found beside "+alone+" or on PATH") {
		t.Errorf("without agent-man: %v, stderr %q", err, stderr)
	}
	if names, _ := filepath.Glob(filepath.Join(empty, "*")); len(names) != 0 {
		t.Errorf("without agent-man, pages were written: %v", names)
	}
}

// TestManCommandNameIsNoDirectory: agent man exec (a command's name, no
// such directory) says DIR is a directory to write every page into, exits
// with the usage code and makes no ./exec.
func TestManCommandNameIsNoDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	var stderr bytes.Buffer
	root := newRootCmd(t.Context(), Env{Stdout: io.Discard, Stderr: &stderr})
	root.SetArgs([]string{"man", "exec"})
	root.SilenceErrors, root.SilenceUsage = true, true
	err := root.Execute()
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.Usage || !strings.Contains(err.Error(), `"exec" is a command, not a directory`) ||
		!strings.Contains(err.Error(), "DIR/agent-exec.1") {
		t.Errorf("agent man exec = %v; want a usage error naming DIR", err)
	}
	if _, err := os.Stat("exec"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("agent man exec made ./exec (%v)", err)
	}
}
