package frontends

import (
	"fmt"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// runTurn runs a turn of text on thread id and returns the turn's id once
// it completed.
func runTurn(t *testing.T, c *rpcClient, reqID float64, id, text string) string {
	t.Helper()
	res := c.call(reqID, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": text}}})
	r, _ := res["result"].(map[string]any)
	if r == nil {
		t.Fatalf("turn/start: %v", res)
	}
	turnID := r["turn"].(map[string]any)["id"].(string)
	c.until(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		tu, _ := p["turn"].(map[string]any)
		return m["method"] == "turn/completed" && tu["id"] == turnID
	})
	return turnID
}

// TestAppServerForkAndName: thread/fork with lastTurnId forks through that
// turn (the fork's next request carries the first turn, not the second);
// an unknown turn is an error naming it; thread/name/set names the thread,
// told to its subscribers, shown by thread/list and recorded for `agent
// resume`; thread/turns/list pages through its turns.
func TestAppServerForkAndName(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"), rt.Reply("r3", "m3", "three")})
	home := appServerConfig(t, srv.URL, false)
	url, _ := startAppServer(t, bin, home)
	c := dialAppServer(t, validating(t, url))
	c.initialize()
	work := t.TempDir()
	id := c.startThread(1, map[string]any{"cwd": work})
	first := runTurn(t, c, 2, id, "first question")
	runTurn(t, c, 3, id, "second question")

	res := c.call(4, "thread/name/set", map[string]any{"threadId": id, "name": "  my named thread "})
	if res["result"] == nil {
		t.Fatalf("thread/name/set: %v", res)
	}
	upd := c.until(isMethod("thread/name/updated"))
	if p := upd["params"].(map[string]any); p["threadName"] != "my named thread" || p["threadId"] != id {
		t.Errorf("thread/name/updated: %v", upd)
	}
	list := c.call(5, "thread/list", map[string]any{})
	var named bool
	for _, th := range list["result"].(map[string]any)["data"].([]any) {
		m := th.(map[string]any)
		named = named || m["id"] == id && m["name"] == "my named thread"
	}
	if !named {
		t.Errorf("thread/list does not show the name: %v", list)
	}
	ents, err := rollout.List(t.Context(), home, "", true, 0)
	if err != nil || len(ents) == 0 || ents[0].Label() != "my named thread" {
		t.Errorf("agent's session index: %v %+v", err, ents)
	}

	// thread/turns/list: newest first, a page of one, then the next.
	page := c.call(10, "thread/turns/list", map[string]any{"threadId": id, "limit": 1})
	r1, _ := page["result"].(map[string]any)
	if r1 == nil || len(r1["data"].([]any)) != 1 || r1["nextCursor"] != "1" || !strings.Contains(fmt.Sprint(r1["data"]), "two") {
		t.Errorf("thread/turns/list limit 1: %v", page)
	}
	page = c.call(11, "thread/turns/list", map[string]any{"threadId": id, "cursor": "1", "itemsView": "full"})
	if r2, _ := page["result"].(map[string]any); r2 == nil || len(r2["data"].([]any)) != 1 || r2["nextCursor"] != nil ||
		!strings.Contains(fmt.Sprint(r2["data"]), "first question") {
		t.Errorf("thread/turns/list's second page: %v", page)
	}
	if res := c.call(12, "plugin/installed", map[string]any{}); res["result"] == nil {
		t.Errorf("plugin/installed: %v", res)
	}

	if code, msg := errorOf(c.call(6, "thread/fork", map[string]any{"threadId": id, "lastTurnId": "no-such-turn"})); code != -32602 || !strings.Contains(msg, "no-such-turn") {
		t.Errorf("fork through an unknown turn: %v %q", code, msg)
	}
	res = c.call(7, "thread/fork", map[string]any{"threadId": id, "lastTurnId": first})
	r, _ := res["result"].(map[string]any)
	if r == nil {
		t.Fatalf("thread/fork: %v", res)
	}
	fork := r["thread"].(map[string]any)
	if turns := fork["turns"].([]any); len(turns) != 1 {
		t.Errorf("the fork has %d turns; want 1: %v", len(turns), turns)
	}
	runTurn(t, c, 8, fork["id"].(string), "after the fork")
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "first question") || strings.Contains(body, "second question") || !strings.Contains(body, "after the fork") {
		t.Errorf("the fork's request does not hold the first turn only:\n%s", body)
	}
}
