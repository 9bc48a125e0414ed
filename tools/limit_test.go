package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
)

// TestOutputTokenLimit: what a tool answers is cut to the session's
// tool_output_token_limit as Codex cuts it (the budget plus Codex's 20%
// allowance, four bytes a token): the head and the tail are kept and the
// cut is said in between; an output within the budget is untouched.
func TestOutputTokenLimit(t *testing.T) {
	head, tail := strings.Repeat("h", 5000), strings.Repeat("t", 5000)
	big := head + strings.Repeat("m", 1_000_000) + tail
	s, err := tools.NewSet(namedTool{"big", big}, namedTool{"small", "fine"})
	if err != nil {
		t.Fatal(err)
	}
	s.LimitOutput(1000) // 1200 tokens with the allowance: 4800 bytes
	got := s.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "big"}}).Output
	removed := (len(big) - 4800 + 3) / 4
	want := strings.Repeat("h", 2400) + fmt.Sprintf("…%d tokens truncated…", removed) + strings.Repeat("t", 2400)
	if got != want {
		t.Errorf("output is %d bytes, starts %q, ends %q; want %d bytes with the cut said", len(got), got[:min(20, len(got))], got[max(0, len(got)-20):], len(want))
	}
	if got := s.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "small"}}).Output; got != "fine" {
		t.Errorf("small output = %q", got)
	}
	// UTF-8 is never split.
	s, _ = tools.NewSet(namedTool{"utf", strings.Repeat("é", 10000)})
	s.LimitOutput(10)
	if out := s.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "utf"}}).Output; !strings.Contains(out, "tokens truncated") || strings.ContainsRune(out, '\uFFFD') || !isUTF8(out) {
		t.Errorf("utf-8 output cut badly: %q", out)
	}
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
