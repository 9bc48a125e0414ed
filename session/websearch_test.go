package session_test

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
)

// webSearchCall is the item the server sends for a search it ran.
func webSearchCall(id, query string) rt.Step {
	return rt.OutputItemDone(map[string]any{"type": "web_search_call", "id": id, "status": "completed",
		"action": map[string]any{"type": "search", "query": query}})
}

// TestWebSearchCall: a web_search_call item the server ran is announced
// once with its query and kept in history, so the next request carries it.
func TestWebSearchCall(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), webSearchCall("ws_1", "weather in Paris"), rt.MessageDone("m1", "sunny"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "again"),
	})
	var got []session.WebSearchDone
	if err := h.sess.Turn(t.Context(), "weather?", func(ev session.Event) {
		if w, ok := ev.(session.WebSearchDone); ok {
			got = append(got, w)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ItemID != "ws_1" || got[0].Query != "weather in Paris" || !strings.Contains(string(got[0].Action), `"type":"search"`) {
		t.Fatalf("WebSearchDone events = %+v", got)
	}
	if err := h.turn(t, "and tomorrow?"); err != nil {
		t.Fatal(err)
	}
	if body := string(h.srv.Requests()[1].Body); !strings.Contains(body, `"type":"web_search_call"`) || !strings.Contains(body, "weather in Paris") {
		t.Errorf("the second request does not carry the search:\n%s", body)
	}
}
