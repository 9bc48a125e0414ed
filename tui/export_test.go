package tui

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/transport"
)

// TestExportMarkdown: /export's document holds the prompt, the answer,
// the command with its output and the patch, and leaves out the
// session's context.
func TestExportMarkdown(t *testing.T) {
	ctx := transport.UserMessage("<environment_context>secret-ish</environment_context>")
	ctx.Origin = transport.OriginContext
	call := transport.Item{Type: "function_call", Name: "exec_command", CallID: "c1", Arguments: `{"cmd":"ls -la","workdir":"/w"}`}
	patch := transport.Item{Type: "custom_tool_call", Name: "apply_patch", CallID: "c2", Input: "*** Begin Patch\n*** Add File: a.txt\n+```\n*** End Patch"}
	answer := transport.Item{Type: "message", Role: "assistant", Raw: []byte(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done: **two** files."}]}`)}
	answer, _ = transport.ParseItem(answer.Raw)
	history := []transport.Item{ctx, transport.UserMessage("list the files"), call,
		transport.CallOutput("c1", "a.txt\nb.txt", false), patch, transport.CallOutput("c2", "Success", true), answer}
	got := exportMarkdown(history, "Session 0190", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	for _, want := range []string{
		"# Session 0190\n\nExported by agent on 2026-12-01 10:00 UTC.\n",
		"\n## You\n\nlist the files\n",
		"\n**Command** (in /w)\n\n```sh\n$ ls -la\n```\n",
		"\n```text\na.txt\nb.txt\n```\n",
		"\n**Patch**\n\n````diff\n*** Begin Patch\n*** Add File: a.txt\n+```\n*** End Patch\n````\n",
		"\n## agent\n\nDone: **two** files.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "environment_context") {
		t.Errorf("the session's context was exported:\n%s", got)
	}
}

func TestOSC52(t *testing.T) {
	seq, ok := osc52("héllo", false)
	if !ok || seq != "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte("héllo"))+"\x07" {
		t.Errorf("osc52 = %q", seq)
	}
	seq, _ = osc52("x", true)
	if !strings.HasPrefix(seq, "\x1b]52;c;eA==\x07\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\") {
		t.Errorf("tmux form = %q", seq)
	}
	if _, ok := osc52(strings.Repeat("x", maxOSC52+1), false); ok {
		t.Error("an answer too long for terminals was sent")
	}
}
