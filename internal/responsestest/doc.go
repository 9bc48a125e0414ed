// Package responsestest provides a scripted fake of the OpenAI Responses
// API, the one server every network test in this module talks to. It is
// modelled on net/http/httptest and tailscale's testcontrol.
//
// Start with [NewServer] and a [Script]: each request to a path ending in
// "/responses" consumes the next [Attempt], in arrival order. An Attempt is
// either a plain HTTP answer ([Status], [StatusBody], [Error]), a hung
// request ([Hang]) or a 200 text/event-stream made of [Step]s ([Stream],
// [Reply]). Steps are Responses API events ([Created], [TextDelta],
// [Completed], [Failed], [Event], ...), raw bytes ([Raw], [Comment]) and
// control points ([Drop], [End], [Stall], [Barrier]).
//
//	srv := responsestest.NewServer(t, responsestest.Script{
//		responsestest.Status(429, "Retry-After", "2"),
//		responsestest.Stream(responsestest.Created("r1"), responsestest.Drop()),
//		responsestest.Reply("r1", "m1", "hello"),
//	})
//	client := srv.Client() // or srv.PipeClient() inside a synctest bubble
//	// POST srv.URL + "/responses" ...
//	got := srv.Requests()
//
// Scripts are plain data, not callbacks, so the same script can later be
// replayed over a WebSocket transport.
//
// Invariants:
//   - Every request is recorded (see [Server.Requests]) before it is
//     answered, including requests beyond the end of the script, which get
//     a 500 and fail the test through [Options.OnUnexpected].
//   - [Server.Close] releases stalled and hung handlers and waits for them;
//     it leaves no goroutines behind once in-flight connections unwind.
//   - Nothing waits on real time: there is deliberately no Delay step.
//     Timing tests run in a testing/synctest bubble with [NewPipeServer]
//     and [Server.PipeClient].
package responsestest
