package bench_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// history builds n items shaped like a working session: user turns,
// assistant messages, reasoning with encrypted content, and tool calls with
// their outputs, built through the public transport API.
func history(tb testing.TB, n int) []transport.Item {
	tb.Helper()
	items := make([]transport.Item, 0, n)
	for i := 0; len(items) < n; i++ {
		var it transport.Item
		var err error
		switch i % 5 {
		case 0:
			it = transport.UserMessage(fmt.Sprintf("turn %d: please look at file_%d.go and fix the failing test", i, i))
		case 1:
			it, err = transport.ParseItem(json.RawMessage(fmt.Sprintf(
				`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":%q}`, i, strings.Repeat("Zm9v", 64))))
		case 2:
			it, err = transport.ParseItem(json.RawMessage(fmt.Sprintf(
				`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"exec_command","arguments":"{\"cmd\":\"go test ./pkg%d/...\"}"}`, i, i, i)))
		case 3:
			it = transport.CallOutput(fmt.Sprintf("call_%d", i-1), strings.Repeat("ok  \tgithub.com/x/pkg\t0.01s\n", 8), false)
		case 4:
			it, err = transport.ParseItem(json.RawMessage(fmt.Sprintf(
				`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","content":[{"type":"output_text","text":%q,"annotations":[]}]}`,
				i, "The test failed because the fixture was stale; I regenerated it and the suite passes now.")))
		}
		if err != nil {
			tb.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

func encodeClient() *modelclient.Client {
	p := provider.Custom("bench")
	p.BaseURL = "http://127.0.0.1:1/v1" // never dialled: Body only encodes
	return modelclient.New(modelclient.Options{Provider: p, SessionID: "bench"})
}

// BenchmarkPromptBody measures rebuilding the prompt from history (a fresh
// Prompt over a copy of the items, as the session does before every
// attempt) and encoding the request body, at three history sizes; the
// us/item metric must stay flat for the cost to be linear.
func BenchmarkPromptBody(b *testing.B) {
	c := encodeClient()
	defer c.Close()
	for _, n := range []int{500, 1000, 5000} {
		items := history(b, n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				p := &modelclient.Prompt{Input: append([]transport.Item(nil), items...)}
				body, err := c.Body(p, modelclient.Settings{Model: "test-model"})
				if err != nil {
					b.Fatal(err)
				}
				size = len(body)
			}
			per := b.Elapsed() / time.Duration(b.N*n)
			b.ReportMetric(float64(per.Nanoseconds())/1e3, "us/item")
			b.ReportMetric(float64(size), "body-bytes")
		})
	}
}

// TestPromptBodyLinear is a cheap guard on the benchmark's claim: the body
// of 5,000 items is ten times the body of 500, give or take the envelope,
// and every item is in it.
func TestPromptBodyLinear(t *testing.T) {
	c := encodeClient()
	defer c.Close()
	size := map[int]int{}
	for _, n := range []int{500, 5000} {
		body, err := c.Body(&modelclient.Prompt{Input: history(t, n)}, modelclient.Settings{Model: "test-model"})
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Input []json.RawMessage }
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Input) != n {
			t.Fatalf("Body(%d items) has %d input items", n, len(v.Input))
		}
		size[n] = len(body)
	}
	if r := float64(size[5000]) / float64(size[500]); r < 9.5 || r > 10.5 {
		t.Errorf("body size ratio 5000/500 items = %.2f; want about 10", r)
	}
}
