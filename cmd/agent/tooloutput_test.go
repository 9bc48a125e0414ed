package main

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestToolOutputTokenLimit: a command that prints 24 KB reaches the model
// cut to tool_output_token_limit (50 tokens, 60 with Codex's allowance:
// 240 bytes), its head and tail kept and the cut said.
func TestToolOutputTokenLimit(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCallStep("seq 1 5000"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	})
	bin := buildAgent(t)
	home := writeConfig(t, srv.URL, "tool_output_token_limit = 50\n")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "-s", "danger-full-access", "count")
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\n%s", err, stderr)
	}
	out := callOutput(t, srv)
	marker := strings.Index(out, " tokens truncated…")
	if marker < 0 || !strings.HasPrefix(out, "Wall time: ") || !strings.HasSuffix(out, "\n4999\n5000\n") || len(out) > 240+len("…99999 tokens truncated…") {
		t.Errorf("output sent (%d bytes) is not cut to the budget with head, tail and the cut said:\n%s", len(out), out)
	}
}
