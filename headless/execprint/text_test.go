package execprint

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

func TestScreenRows(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  int
	}{
		{"", 10, 1}, {"abc", 10, 1}, {"0123456789", 10, 1}, {"0123456789x", 10, 2},
		{"a\nb", 10, 2}, {"a\n", 10, 2}, {"héllo wörld", 5, 3},
	}
	for _, tt := range tests {
		if got := screenRows(tt.text, tt.width); got != tt.want {
			t.Errorf("screenRows(%q, %d) = %d; want %d", tt.text, tt.width, got, tt.want)
		}
	}
}

// printText runs events through a Text printer on pipes and returns
// stdout and stderr.
func printText(o TextOptions, events ...session.Event) (stdout, stderr string) {
	var out, errb bytes.Buffer
	o.Stdout, o.Stderr = &out, &errb
	p := NewText(o)
	for _, ev := range events {
		p.Handle(ev)
	}
	p.Finish()
	return out.String(), errb.String()
}

func intp(n int) *int { return &n }

// TestTextCommands: a command is shown as it starts (its shell command
// line and directory) and as it ends (how, and at most 20 lines of its
// output).
func TestTextCommands(t *testing.T) {
	echo := tools.Call{ID: "c1", Name: "exec_command", Input: `{"cmd":"echo hello"}`}
	argv := []string{"/bin/bash", "-lc", "echo hello"}
	long := strings.Repeat("line\n", 25)
	_, stderr := printText(TextOptions{Tools: Tools{Shell: "/bin/bash", Cwd: "/work"}},
		session.ToolCallBegin{Call: echo},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: "completed", Argv: argv, CommandOutput: "hello\n", ExitCode: intp(0)}},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: "completed", Argv: argv, CommandOutput: long, ExitCode: intp(2)}},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: "completed", Argv: argv}},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: "declined", Argv: argv, Output: "the user said no\nmore"}},
		session.ToolCallEnd{Call: echo, Result: tools.Result{Status: "failed", Output: "  invalid arguments\nat 1"}},
		session.ToolCallBegin{Call: tools.Call{Name: "exec_command", Input: "{"}},
		session.ToolCallBegin{Call: tools.Call{Name: "update_plan"}},
	)
	want := "exec\n/bin/bash -lc 'echo hello' in /work\n" +
		" succeeded:\nhello\n\n" +
		" exited 2:\n" + strings.Repeat("line\n", 20) + "... (5 more lines)\n\n" +
		" still running:\n\n" +
		" declined: the user said no\n" +
		"exec failed: invalid arguments\n"
	if stderr != want {
		t.Errorf("stderr:\n%q\nwant:\n%q", stderr, want)
	}
}

// TestTextPatchesAndMCP: a patch shows its files and their diffs sorted
// by path (absolute under the workspace), a rejected one why; an MCP call
// shows server/tool as it starts and ends.
func TestTextPatchesAndMCP(t *testing.T) {
	diff := "--- a/z.go\n+++ b/z.go\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n"
	mcp := Tools{Cwd: "/work", MCPTool: func(name string) (string, string, bool) { return "docs", "search", name == "mcp__docs__search" }}
	search := tools.Call{ID: "c3", Name: "mcp__docs__search"}
	_, stderr := printText(TextOptions{Tools: mcp},
		session.ToolCallEnd{Call: tools.Call{Name: "apply_patch"}, Result: tools.Result{Status: "completed", Files: []string{"M z.go", "A a.txt", "A /abs/b"}, Diff: diff}},
		session.ToolCallEnd{Call: tools.Call{Name: "apply_patch"}, Result: tools.Result{Status: "failed", Output: "apply_patch: no such file: q.go\n"}},
		session.ToolCallBegin{Call: search},
		session.ToolCallEnd{Call: search, Result: tools.Result{Status: "completed", MCP: &tools.MCPCall{Server: "docs", Tool: "search"}}},
	)
	want := "apply patch\npatch: completed\n/abs/b\n/work/a.txt\n/work/z.go\n" +
		"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n--- a/z.go\n+++ b/z.go\n@@ -1 +1 @@\n-x\n+y\n\n" +
		"apply patch\npatch: failed\nno such file: q.go\n" +
		"mcp: docs/search started\nmcp: docs/search (completed)\n"
	if stderr != want {
		t.Errorf("stderr:\n%q\nwant:\n%q", stderr, want)
	}
}

// TestTextNotices: retries, warnings and provider switches are lines on
// stderr; the failed attempt's and the failed provider's messages are not
// the answer; the token count follows the turn.
func TestTextNotices(t *testing.T) {
	retry := modelclient.Retry{Layer: "stream", Class: "transport", Attempt: 1, Max: 5, Left: 4, Delay: 200 * time.Millisecond,
		Failure: modelclient.Failure{Err: transport.ErrIncomplete}}
	sw := session.ProviderSwitch{From: failover.Candidate{Provider: "a", Model: "m"}, To: failover.Candidate{Provider: "b", Model: "m"}, Reason: "down"}
	stdout, stderr := printText(TextOptions{},
		session.MessageDone{Text: "cut"},
		session.Retry{Retry: retry},
		session.Warning{Message: "falling back"},
		session.MessageDone{Text: "from a"},
		sw,
		session.MessageDone{Text: "answer"},
		session.ResponseCompleted{},
		session.TurnCompleted{Total: transport.Usage{TotalTokens: 42}},
	)
	want := session.RetryNotice(retry, retry.Delay) + "\nwarning: falling back\n" + sw.Notice() + "\ncodex\nanswer\ntokens used: 42\n"
	if stderr != want || stdout != "answer\n" {
		t.Errorf("stdout %q, stderr:\n%q\nwant %q and:\n%q", stdout, stderr, "answer\n", want)
	}
}

// TestTextTerminal: on a terminal the answer streams live on stderr,
// sanitized; a failed attempt's live text is erased when the width is
// known, else marked; text from outside reaching a terminal (stdout or
// stderr) cannot drive it.
func TestTextTerminal(t *testing.T) {
	evil := "a\x1b]0;pwned\x07b"
	stdout, stderr := printText(TextOptions{StdoutTTY: true, StderrTTY: true, Width: func() int { return 4 }},
		session.TextDelta{Delta: "abcdefgh\nxy"},
		session.Retracted{},
		session.TextDelta{Delta: evil},
		session.MessageDone{Text: evil},
		session.ResponseCompleted{},
		session.Warning{Message: evil},
		session.TurnCompleted{},
	)
	// "abcdefgh\nxy" takes 3 rows at width 4: up 2, then clear.
	want := "abcdefgh\nxy\r\x1b[2A\x1b[J" + "ab\n" + "warning: ab\n"
	if stderr != want || stdout != "ab\n" {
		t.Errorf("stdout %q, stderr:\n%q\nwant %q and:\n%q", stdout, stderr, "ab\n", want)
	}
	_, stderr = printText(TextOptions{StderrTTY: true},
		session.TextDelta{Delta: "part"},
		session.Retracted{},
		session.TextDelta{Delta: "whole\n"},
		session.MessageDone{Text: "whole"},
	)
	if want := "part [partial answer discarded]\nwhole\n"; stderr != want {
		t.Errorf("unknown width: stderr %q; want %q", stderr, want)
	}
}

func TestHeader(t *testing.T) {
	h := Header{Version: "1.2", Workdir: "/w", Model: "m", Provider: "p", Approval: "never", Sandbox: "workspace-write",
		WritableRoots: []string{"/tmp/x"}, SessionID: "s1"}
	want := "agent 1.2\n--------\nworkdir: /w\nmodel: m\nprovider: p\napproval: never\n" +
		"sandbox: workspace-write [workdir, /tmp/x]\nreasoning effort: default\nsession id: s1\n--------\n"
	if got := h.String(); got != want {
		t.Errorf("header:\n%s\nwant:\n%s", got, want)
	}
	h.Sandbox, h.ReasoningEffort = "read-only", "high"
	if got := h.String(); !strings.Contains(got, "sandbox: read-only\nreasoning effort: high\n") {
		t.Errorf("header:\n%s", got)
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// TestTextLongAnswerNotCopied: a 4 MiB answer is printed on stderr (after
// "codex") and on stdout from where it lies: no copy of it per print, no
// concatenation, no fmt buffer.
func TestTextLongAnswerNotCopied(t *testing.T) {
	text := strings.Repeat("lorem ipsum ", 4<<20/12)
	var out, errw countingWriter
	p := NewText(TextOptions{Stdout: &out, Stderr: &errw})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, ev := range []session.Event{session.MessageDone{ItemID: "m", Text: text}, session.ResponseCompleted{}, session.TurnCompleted{}} {
		p.Handle(ev)
	}
	runtime.ReadMemStats(&after)
	if out.n != len(text)+1 || errw.n != len("codex\n")+len(text)+1 {
		t.Fatalf("wrote %d bytes on stdout, %d on stderr; want the answer on each", out.n, errw.n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(text))/8 {
		t.Errorf("printing a %d KiB answer twice allocated %d KiB; want no copy of it", len(text)>>10, alloc>>10)
	}
}
