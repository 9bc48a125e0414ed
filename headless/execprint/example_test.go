package execprint_test

import (
	"os"
	"time"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// A message completed by an attempt that is then retried is not printed:
// the retry's answer is the one.
func ExampleJSON() {
	p := execprint.NewJSON(os.Stdout, "thread-1", execprint.Tools{})
	for _, ev := range []session.Event{
		session.TurnStarted{Input: "hi"},
		session.MessageDone{ItemID: "m1", Text: "a cut answer"},
		session.Retry{Retry: modelclient.Retry{Layer: "stream", Class: "transient", Attempt: 1, Max: 5, Left: 4,
			Delay: 200 * time.Millisecond, Failure: modelclient.Failure{Err: transport.ErrIncomplete}}},
		session.MessageDone{ItemID: "m2", Text: "hello"},
		session.ResponseCompleted{},
		session.TurnCompleted{Requests: 2},
	} {
		p.Handle(ev)
	}
	// Output:
	// {"type":"thread.started","thread_id":"thread-1"}
	// {"type":"turn.started"}
	// {"type":"retry","layer":"stream","class":"transient","attempt":1,"max":5,"left":4,"delay_ms":200,"waited_ms":0,"reason":"stream closed before response.completed"}
	// {"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hello"}}
	// {"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0},"requests":2}
}

// Standard output gets the final message only; the rest is on stderr.
func ExampleText() {
	p := execprint.NewText(execprint.TextOptions{Stdout: os.Stdout, Stderr: os.Stdout})
	for _, ev := range []session.Event{
		session.TurnStarted{Input: "hi"},
		session.MessageDone{ItemID: "m1", Text: "hello"},
		session.ResponseCompleted{},
		session.TurnCompleted{Requests: 1},
	} {
		p.Handle(ev)
	}
	p.Finish()
	// Output:
	// codex
	// hello
	// hello
}
