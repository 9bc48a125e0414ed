package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRun writes a page per command of the tree, and names what is wrong
// with a bad invocation or tree.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	tree := `{"title":"AGENT","section":"1","source":"agent 1.2.3","manual":"agent manual","root":{"use":"agent","runnable":true,
		"disable_auto_gen_tag":true,"commands":[{"use":"exec [PROMPT]","short":"Run one turn","runnable":true,
		"flags":[{"name":"json","type":"bool","default":"false","no_opt_default":"true","usage":"JSON events"}]}]}}`
	if err := run([]string{dir}, strings.NewReader(tree)); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "agent-exec.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.TH "AGENT" "1" `, `"agent 1.2.3" "agent manual"`, "Run one turn", `\fB--json\fP[=false]`, "JSON events"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("agent-exec.1 lacks %q:\n%s", want, page)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.1")); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		args      []string
		in, wants string
	}{
		{nil, tree, "usage: agent-man DIR"},
		{[]string{dir}, "{", "reading the command tree on standard input"},
		{[]string{dir}, "{}", "no root command"},
		{[]string{filepath.Join(dir, "agent.1", "x")}, tree, "not a directory"},
	} {
		if err := run(tc.args, strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.wants) {
			t.Errorf("run(%q, %q) = %v; want an error containing %q", tc.args, tc.in, err, tc.wants)
		}
	}
}

// TestPlainText: the pages say what --help says: "<stdin>" and
// "mcp__<server>__<tool>" (help text is plain, not Markdown) survive in
// the description and in a flag's usage, as man shows them.
func TestPlainText(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	dir := t.TempDir()
	tree := `{"title":"AGENT","section":"1","source":"agent","manual":"agent manual","root":{"use":"agent","runnable":true,
		"disable_auto_gen_tag":true,"long":"Standard input is sent as a <stdin> block.\n\nTools are offered as mcp__<server>__<tool>; *not* bold.",
		"flags":[{"name":"tool","type":"string","usage":"the tool, as mcp__<server>__<tool>"}]}}`
	if err := run([]string{dir}, strings.NewReader(tree)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "-l", filepath.Join(dir, "agent.1"))
	cmd.Env = append(os.Environ(), "MANWIDTH=200", "MAN_KEEP_FORMATTING=0", "PAGER=cat", "MANPAGER=cat")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man -l: %v", err)
	}
	// man's plain output may still carry overstrikes (x\bx): keep the text.
	text := regexp.MustCompile(".\b").ReplaceAllString(string(out), "")
	for _, want := range []string{"a <stdin> block", "offered as mcp__<server>__<tool>; *not* bold", "the tool, as mcp__<server>__<tool>"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q:\n%s", want, text)
		}
	}
}
