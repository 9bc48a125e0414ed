package tui

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// turnCounter is an engine that counts the turns it was asked to run.
type turnCounter struct {
	nopEngine
	n *int
}

func (e turnCounter) Turn(context.Context, string, func(session.Event)) error { *e.n++; return nil }

// TestSideConversation: /side QUESTION shows a transcript of its own, the
// question and the answer, without a turn of the conversation; the next
// question carries the earlier exchange; other commands wait; Esc on an
// empty composer shows the conversation again, without the side's lines.
func TestSideConversation(t *testing.T) {
	t.Parallel()
	turns := 0
	var asked []string
	var earliers [][]transport.Item
	m := newLiveModel(t, Options{Engine: turnCounter{n: &turns},
		Messages: []Message{{Role: "user", Text: "main question"}, {Role: "assistant", Text: "main answer"}},
		Commands: Commands{Side: func(_ context.Context, earlier []transport.Item, q string) (string, []transport.Item, error) {
			asked, earliers = append(asked, q), append(earliers, earlier)
			ans := "side answer " + string(rune('0'+len(asked)))
			return ans, []transport.Item{transport.UserMessage(q), transport.UserMessage(ans)}, nil
		}}})
	slashRun(m, "/side what is X?")
	view := plain(m.View())
	for _, want := range []string{"Side conversation", "what is X?", "side answer 1", "side conversation (esc returns)"} {
		if !strings.Contains(view, want) {
			t.Errorf("the side view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "main answer") {
		t.Errorf("the side view shows the conversation:\n%s", view)
	}
	slashRun(m, "and Y?") // a plain message asks aside too
	slashRun(m, "/compact")
	if len(asked) != 2 || asked[1] != "and Y?" || len(earliers[0]) != 0 || len(earliers[1]) != 2 {
		t.Fatalf("asked %q with %d, %d earlier items; want the second with the first exchange", asked, len(earliers[0]), len(earliers[len(earliers)-1]))
	}
	if view := plain(m.View()); !strings.Contains(view, "/compact works in the conversation") {
		t.Errorf("/compact in the side was not refused:\n%s", view)
	}
	send(m, press("esc"))
	view = plain(m.View())
	if !strings.Contains(view, "main answer") || strings.Contains(view, "side answer") || strings.Contains(view, "what is X?") {
		t.Errorf("after esc the conversation is not shown as it was:\n%s", view)
	}
	if turns != 0 {
		t.Errorf("the side ran %d turns of the conversation", turns)
	}
}

// TestSideLeavesHistoryAlone: a side question goes to the model with the
// conversation as context, through the session's retries (a 503 first),
// and neither it nor its answer enters the history, the next turn's
// request or the recording.
func TestSideLeavesHistoryAlone(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "main answer"), rt.Status(503),
		rt.Reply("r2", "m2", "the side answer"), rt.Reply("r3", "m3", "second answer")})
	a, home := testApp(t, fakeConfig(srv.URL), false)
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, first)
	defer chat.End()
	runTurn(t, chat, "main question")
	before := len(chat.Current().History())
	ans, ex, err := chatCommands(a, chat).Side(t.Context(), nil, "aside question?")
	if err != nil || ans != "the side answer" || len(ex) != 2 {
		t.Fatalf("Side = %q, %d items, %v", ans, len(ex), err)
	}
	if n := len(chat.Current().History()); n != before {
		t.Errorf("the history grew from %d to %d items", before, n)
	}
	runTurn(t, chat, "second question")
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests; want 4 (turn, 503, side, turn)", len(reqs))
	}
	side, next := string(reqs[2].Body), string(reqs[3].Body)
	for _, want := range []string{"main question", "main answer", "side question", "aside question?"} {
		if !strings.Contains(side, want) {
			t.Errorf("the side request lacks %q", want)
		}
	}
	if tl, _ := reqs[2].JSON["tools"].([]any); len(tl) > 0 {
		t.Error("the side request offers tools")
	}
	if strings.Contains(next, "aside question?") || strings.Contains(next, "the side answer") {
		t.Errorf("the next turn's request carries the side exchange:\n%s", next)
	}
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "aside question?") || strings.Contains(string(b), "the side answer") {
			t.Errorf("%s records the side exchange", p)
		}
		return nil
	})
}
