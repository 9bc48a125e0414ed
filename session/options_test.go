package session_test

import (
	"fmt"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
)

// TestCompactPrompt: compact_prompt replaces the summary request's prompt.
func TestCompactPrompt(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r1b", "m1b", "answer two"),
		rt.Reply("r2", "m2", "the summary"),
	}, func(_ *provider.Info, o *session.Options) { o.CompactPrompt = "Summarise in three bullets." })
	for _, q := range []string{"first question", "second question"} {
		if err := h.turn(t, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	body := string(h.srv.Requests()[2].Body)
	if !strings.Contains(body, "Summarise in three bullets.") || strings.Contains(body, "CONTEXT CHECKPOINT COMPACTION") {
		t.Errorf("summary request does not carry compact_prompt instead of the built-in prompt:\n%s", body)
	}
}

// TestHideReasoning: reasoning events reach OnEvent but not the caller,
// and the reasoning item stays in the history.
func TestHideReasoning(t *testing.T) {
	var seen, shown []string
	h := newHarness(t, rt.Script{rt.Stream(rt.Created("r1"),
		rt.ReasoningSummaryDelta("rs1", "thinking"),
		rt.OutputItemDone(map[string]any{"type": "reasoning", "id": "rs1",
			"summary": []any{map[string]any{"type": "summary_text", "text": "thinking"}}}),
		rt.MessageDone("m1", "answer"), rt.Completed("r1"))},
		func(_ *provider.Info, o *session.Options) {
			o.HideReasoning = true
			o.OnEvent = func(ev session.Event) { seen = append(seen, typeName(ev)) }
		})
	if err := h.sess.Turn(t.Context(), "q", func(ev session.Event) { shown = append(shown, typeName(ev)) }); err != nil {
		t.Fatal(err)
	}
	has := func(list []string, name string) bool {
		for _, n := range list {
			if n == name {
				return true
			}
		}
		return false
	}
	if !has(seen, "ReasoningDone") || has(shown, "ReasoningDone") || has(shown, "ReasoningDelta") || !has(shown, "MessageDone") {
		t.Errorf("OnEvent saw %v; the caller saw %v", seen, shown)
	}
	found := false
	for _, it := range h.sess.History() {
		found = found || it.Type == "reasoning"
	}
	if !found {
		t.Error("the reasoning item left the history")
	}
}

func typeName(ev session.Event) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", ev), "session.")
}
