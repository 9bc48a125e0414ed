package session_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// TestCompactTooShortSendsNothing: /compact on a one-turn conversation
// (two context items, the question, the answer) used to summarise the
// answer alone, "4 items → 4"; now it says there is nothing to compact
// and sends no request.
func TestCompactTooShortSendsNothing(t *testing.T) {
	rec := &fakeRecorder{}
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "answer one")}, func(_ *provider.Info, o *session.Options) {
		o.Recorder = rec
		o.Context = []transport.Item{session.EnvironmentContext(session.Environment{Cwd: "/w"}), transport.UserMessage("AGENTS.md: be careful.")}
	})
	if err := h.turn(t, "first question"); err != nil {
		t.Fatal(err)
	}
	before := texts(h.sess.History())
	var events []session.Event
	err := h.sess.Compact(t.Context(), func(ev session.Event) { events = append(events, ev) })
	if !errors.Is(err, session.ErrNothingToCompact) {
		t.Fatalf("Compact = %v; want ErrNothingToCompact", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests; want the turn's only", n)
	}
	if diff := cmp.Diff(before, texts(h.sess.History())); diff != "" {
		t.Errorf("history changed (-before +after):\n%s", diff)
	}
	if len(events) != 0 || len(rec.compacted) != 0 {
		t.Errorf("events %v, %d compactions recorded; want none", events, len(rec.compacted))
	}
}

// TestLongSessionKeepsTheTaskAndTheLastSteps: a turn of fifty tool calls
// fills the window; the automatic compaction keeps the task verbatim, the
// AGENTS.md rules, the plan, the last five calls and their outputs, and
// the files the patches touched, and the request after it carries them.
func TestLongSessionKeepsTheTaskAndTheLastSteps(t *testing.T) {
	const task = "TASK: rename Foo to Bar in every package, keep the tests green, do not touch vendor/."
	const calls = 50
	script := rt.Script{
		rt.Stream(rt.Created("p"), rt.FunctionCallDone("fc-plan", "plan", "update_plan",
			`{"plan":[{"step":"rename","status":"in_progress"},{"step":"test","status":"pending"}]}`), rt.Completed("p")),
		rt.Stream(rt.Created("patch"), rt.OutputItemDone(map[string]any{"type": "custom_tool_call", "id": "ct", "call_id": "patch",
			"name": "apply_patch", "input": "*** Begin Patch\n*** Add File: notes/rename.md\n+Foo -> Bar\n*** End Patch\n"}), rt.Completed("patch")),
	}
	for i := 1; i <= calls; i++ {
		done := rt.Completed(fmt.Sprintf("r%d", i))
		if i == calls {
			done = rt.CompletedUsage(fmt.Sprintf("r%d", i), 9000, 0, 1000, 0) // the window is filling up
		}
		script = append(script, rt.Stream(rt.Created(fmt.Sprintf("r%d", i)), execCall(fmt.Sprintf("fc%d", i), fmt.Sprintf("c%d", i), fmt.Sprintf("echo out-%d", i)), done))
	}
	script = append(script, rt.Reply("sum", "ms", "Renamed Foo in 45 packages; tests next."), rt.Reply("end", "me", "done"))
	rec := &fakeRecorder{}
	h := newHarness(t, script, withTools(t, t.TempDir(), "never", nil), func(_ *provider.Info, o *session.Options) {
		o.Recorder = rec
		o.Context = []transport.Item{transport.UserMessage("AGENTS.md: never edit vendor/.")}
		o.AutoCompactTokens = 8000
	})
	if err := h.turn(t, task); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != calls+4 {
		t.Fatalf("%d requests; want %d", len(reqs), calls+4)
	}
	if !strings.Contains(string(reqs[calls+2].Body), "CONTEXT CHECKPOINT COMPACTION") {
		t.Fatal("no compaction before the request after the fiftieth call")
	}
	// The request after the compaction.
	var got []string
	for _, it := range reqs[calls+3].JSON["input"].([]any) {
		m := it.(map[string]any)
		switch m["type"] {
		case "message":
			text := m["content"].([]any)[0].(map[string]any)["text"].(string)
			if strings.HasPrefix(text, session.SummaryPrefix) {
				text = "summary: " + strings.TrimPrefix(text, session.SummaryPrefix)
			}
			got = append(got, m["role"].(string)+": "+text)
		case "function_call":
			got = append(got, "call "+m["call_id"].(string)+" "+m["arguments"].(string))
		case "function_call_output":
			got = append(got, "output "+m["call_id"].(string)+" "+strings.TrimSpace(lastLine(m["output"].(string))))
		default:
			got = append(got, m["type"].(string))
		}
	}
	want := []string{
		"user: AGENTS.md: never edit vendor/.",
		"user: " + task,
		`call plan {"plan":[{"step":"rename","status":"in_progress"},{"step":"test","status":"pending"}]}`,
		"output plan Plan updated",
		"user: summary: Renamed Foo in 45 packages; tests next.\n\n" + session.FilesTouchedHeader + "\n- notes/rename.md",
	}
	for i := calls - session.DefaultKeepToolCalls + 1; i <= calls; i++ {
		want = append(want, fmt.Sprintf(`call c%d {"cmd":"echo out-%d"}`, i, i), fmt.Sprintf("output c%d out-%d", i, i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the request after compaction (-want +got):\n%s", diff)
	}
	// Nothing is lost on disk: every call stays recorded before the
	// compaction's replacement.
	n := 0
	for _, it := range rec.items {
		if it.IsCall() {
			n++
		}
	}
	if n != calls+2 || len(rec.compacted) != 1 {
		t.Errorf("recorded %d calls and %d compactions; want %d and 1", n, len(rec.compacted), calls+2)
	}
}

// lastLine is the last non-empty line of s (an exec output's own, after
// its header).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestCompactKeepToolCalls: compact_keep_tool_calls sets how many of the
// latest calls stay verbatim; negative keeps none (the summary then ends
// the history).
func TestCompactKeepToolCalls(t *testing.T) {
	for _, tt := range []struct {
		keep int
		want []string
	}{
		{2, []string{"c3", "c4"}},
		{-1, nil},
	} {
		t.Run(fmt.Sprint(tt.keep), func(t *testing.T) {
			var script rt.Script
			for i := 1; i <= 4; i++ {
				script = append(script, rt.Stream(rt.Created(fmt.Sprintf("r%d", i)), execCall(fmt.Sprintf("fc%d", i), fmt.Sprintf("c%d", i), "true"), rt.Completed(fmt.Sprintf("r%d", i))))
			}
			script = append(script, rt.Reply("r5", "m5", "answer"), rt.Reply("sum", "ms", "the summary"))
			h := newHarness(t, script, withTools(t, t.TempDir(), "never", nil), func(_ *provider.Info, o *session.Options) { o.CompactKeepToolCalls = tt.keep })
			if err := h.turn(t, "the task"); err != nil {
				t.Fatal(err)
			}
			if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
				t.Fatal(err)
			}
			var got []string
			hist := h.sess.History()
			for _, it := range hist {
				if it.IsCall() {
					got = append(got, it.CallID)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls kept (-want +got):\n%s", diff)
			}
			if tt.keep < 0 && hist[len(hist)-1].Origin != transport.OriginSummary {
				t.Errorf("history = %q; want the summary last", texts(hist))
			}
		})
	}
}
