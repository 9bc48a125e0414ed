package main

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// malformedItem is an output_item.done whose content is a string, not an
// array of parts: agent cannot read it.
func malformedItem() rt.Step {
	return rt.OutputItemDone(map[string]any{"type": "message", "id": "m0", "role": "assistant", "content": "lost words"})
}

// TestMalformedContentKeptInRollout: an item agent could not read is
// named on stderr once and kept, as the server sent it, in the session's
// rollout (a malformed event with the raw event), so nothing the server
// said is dropped without a trace; the answer stands.
func TestMalformedContentKeptInRollout(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), malformedItem(), rt.MessageDone("m", "answer"), rt.Completed("r"))})
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"
	r := runCLI(t, srv, runOpts{config: cfg}, "exec", "hi")
	if r.code != 0 || r.stdout != "answer\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and the answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, `"content" is a string, not an array of parts`); n != 1 {
		t.Errorf("stderr names the item %d times; want once:\n%s", n, r.stderr)
	}
	ent, err := rollout.Latest(t.Context(), r.home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []rollout.EventMsg
	for _, ev := range ro.Events {
		if ev.Type == rollout.EventMalformed {
			kept = append(kept, ev)
		}
	}
	if len(kept) != 1 || !strings.Contains(string(kept[0].Raw), `"content":"lost words"`) || !strings.Contains(kept[0].Message, "item m0") {
		t.Fatalf("rollout's malformed events = %+v; want the raw event once, with its warning", kept)
	}
	if ro.LastTurn != rollout.TurnCompleted || len(ro.Warnings) != 0 {
		t.Errorf("rollout: last turn %q, warnings %v", ro.LastTurn, ro.Warnings)
	}
}

// TestMalformedTooDeepItemNamed: an output item nested 11,000 deep (past
// what a JSON decoder reads) is named on stderr like any other item agent
// cannot read, and kept in the rollout, which still loads; the answer
// stands.
func TestMalformedTooDeepItemNamed(t *testing.T) {
	t.Parallel()
	const depth = 11000
	deep := `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"deep1","role":"assistant","content":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}`
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.EventData(deep), rt.MessageDone("m", "answer"), rt.Completed("r"))})
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"
	r := runCLI(t, srv, runOpts{config: cfg}, "exec", "hi")
	if r.code != 0 || r.stdout != "answer\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and the answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := "the server sent response.output_item.done (item deep1) that agent could not read: "
	if n := strings.Count(r.stderr, want); n != 1 || !strings.Contains(r.stderr, "nested") {
		t.Errorf("stderr names the deep item %d times (want once, saying it is too deeply nested):\n%s", n, r.stderr)
	}
	ent, err := rollout.Latest(t.Context(), r.home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, ev := range ro.Events {
		if ev.Type == rollout.EventMalformed && strings.Contains(ev.Message, "item deep1") {
			kept++
		}
	}
	if kept != 1 || ro.LastTurn != rollout.TurnCompleted {
		t.Errorf("rollout: %d malformed events for the deep item (want 1), last turn %q", kept, ro.LastTurn)
	}
}
