package modelclient_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/transport"
)

// TestBodyWritesItemsAsTheyAre: the body is valid JSON holding the
// instructions, the tools and the input items verbatim, in order (an
// empty history as [], "input" in other fields' text no confusion); a 4 MiB tool call in the history is copied once into
// the body, not compacted into a growing buffer and copied out again, and
// not at all into the parts a request sends.
func TestBodyWritesItemsAsTheyAre(t *testing.T) {
	c := modelclient.New(modelclient.Options{SessionID: "s"})
	call, err := transport.ParseItem([]byte(`{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{\"cmd\":\"echo \\\"<input>\\\" & more\"}"}`))
	if err != nil {
		t.Fatal(err)
	}
	items := []transport.Item{transport.UserMessage("hi <b>"), call, transport.CallOutput("c1", "ok", false)}
	for _, input := range [][]transport.Item{nil, items} {
		p := &modelclient.Prompt{Instructions: `say "input":null`, Input: input, Tools: []json.RawMessage{json.RawMessage(`{"type":"function","name":"input"}`)}}
		got, err := c.Body(p, modelclient.Settings{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Input        []json.RawMessage `json:"input"`
			Instructions string            `json:"instructions"`
			Tools        []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(got, &body); err != nil {
			t.Fatalf("body %s: %v", got, err)
		}
		if len(body.Input) != len(input) || body.Instructions != p.Instructions || len(body.Tools) != 1 {
			t.Fatalf("body %s: want %d input items, the instructions and the tool", got, len(input))
		}
		for i, it := range input {
			if string(body.Input[i]) != string(it.Raw) {
				t.Errorf("input[%d] = %s, want %s", i, body.Input[i], it.Raw)
			}
		}
		if input == nil && !strings.Contains(string(got), `"input":[]`) {
			t.Errorf("body %s: want an empty input as []", got)
		}
	}

	big := strings.Repeat("lorem ipsum ", 4<<20/12)
	raw, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": "c2", "name": "exec_command",
		"arguments": `{"cmd":"true","justification":"` + big + `"}`})
	bigCall, err := transport.ParseItem(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := &modelclient.Prompt{Input: append(items, bigCall)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := c.Body(p, modelclient.Settings{Model: "m"})
	runtime.ReadMemStats(&after)
	if err != nil || !strings.Contains(string(got), string(raw)) {
		t.Fatalf("Body: %v; want the call in it", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(raw))*5/4 {
		t.Errorf("a body holding a %d KiB call allocated %d KiB; want one copy", len(raw)>>10, alloc>>10)
	}

	// What a request sends: the same bytes, in parts, the call not copied
	// (a 120 MiB call was copied into the next request's body: the third
	// copy of the event in the process; issue 42).
	runtime.ReadMemStats(&before)
	parts, err := c.BodyParts(p, modelclient.Settings{Model: "m"})
	runtime.ReadMemStats(&after)
	if err != nil || string(bytes.Join(parts, nil)) != string(got) {
		t.Fatalf("BodyParts: %v; want Body's bytes", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(raw))/8 {
		t.Errorf("the parts of a body holding a %d KiB call allocated %d KiB; want no copy of it", len(raw)>>10, alloc>>10)
	}
}
