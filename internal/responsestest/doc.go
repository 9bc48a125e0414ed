// Package responsestest provides a scripted fake of the OpenAI Responses
// API, the one server every network test in this module talks to. It is
// modelled on net/http/httptest and tailscale's testcontrol.
//
// Start with [NewServer] and a [Script]: each request to a path ending in
// "/responses" consumes the next [Attempt], in arrival order. An Attempt is
// either a plain HTTP answer ([Status], [StatusBody], [Error]), a hung
// request ([Hang]) or a stream made of [Step]s ([Stream], [Reply]). Steps
// are Responses API events ([Created], [TextDelta], [Completed], [Failed],
// [Event], ...), raw bytes ([Raw], [Comment], [Binary]) and control points
// ([Drop], [End], [CloseWS], [Stall], [Barrier], [Quorum], [Sleep]).
//
//	srv := responsestest.NewServer(t, responsestest.Script{
//		responsestest.Status(429, "Retry-After", "2"),
//		responsestest.Stream(responsestest.Created("r1"), responsestest.Drop()),
//		responsestest.Reply("r1", "m1", "hello"),
//	})
//	client := srv.Client() // or srv.PipeClient() inside a synctest bubble
//	// POST srv.URL + "/responses", or websocket.Dial it with
//	// &websocket.DialOptions{HTTPClient: client}
//	got := srv.Requests()
//
// # One script, two transports
//
// Scripts are plain data, not callbacks, so the same script drives both
// the SSE transport (POST .../responses answered with text/event-stream)
// and the WebSocket transport (GET .../responses with "Upgrade:
// websocket", then one response.create text message per response), and
// a test can run the same script over each.
//
// Over SSE, every POST consumes one attempt. Over WebSocket, attempts are
// consumed by handshakes and messages:
//
//   - A handshake looks at the next attempt. If it is a non-stream attempt
//     ([Status], [StatusBody], [Error], [Hang]) the handshake consumes it
//     and gets it as a plain HTTP answer, so Status(426) refuses the
//     upgrade with 426 and Hang never answers. Otherwise (a stream, or no
//     attempt left) the upgrade is accepted and nothing is consumed.
//   - On an accepted connection, each {"type":"response.create",...} text
//     message consumes the next attempt. A stream runs its steps, one text
//     message per event carrying exactly the JSON that SSE puts in "data:";
//     unless a step ended the connection, it then stays open for the next
//     response.create. A non-stream attempt is sent as one error event,
//     {"type":"error","status":N,"error":{...},"headers":{...}}, and the
//     connection stays open (a Hang sends nothing until [Server.Release]
//     or [Server.Close], then drops the connection). With no attempt left
//     the message is reported to [Options.OnUnexpected] and the
//     connection closed with StatusInternalError.
//   - Any other message is reported to [Options.OnUnexpected] and ignored.
//
// Steps map onto each transport: over WebSocket [Comment] becomes a ping,
// [Drop] a close without a close frame and [End] a normal closure; over
// SSE [CloseWS] is a [Drop] and [Binary] writes raw bytes. The headers of
// [StreamWithHeaders] only apply to SSE responses.
//
// [Server.Requests] lists, in order, every request that consumed an
// attempt: POSTs, refused handshakes and WebSocket messages, the latter
// with the handshake's headers and the connection's number in
// [Request.Conn], so tests can tell connection reuse from reconnects.
// [Server.Handshakes] lists every handshake, accepted or not.
//
// Invariants:
//   - Every request is recorded (see [Server.Requests]) before it is
//     answered, including requests beyond the end of the script, which get
//     a 500 (or a WebSocket close) and fail the test through
//     [Options.OnUnexpected].
//   - [Server.Close] releases stalled and hung handlers, closes WebSocket
//     connections and waits for them; it leaves no goroutines behind once
//     in-flight connections unwind.
//   - Nothing waits on real time: there is deliberately no Delay step.
//     Timing tests run in a testing/synctest bubble with [NewPipeServer]
//     and [Server.PipeClient], over SSE or WebSocket alike.
package responsestest
