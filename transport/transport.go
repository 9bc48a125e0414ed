// Package transport is the contract between the model client and the wire
// transports (transport/sse, transport/ws): a [Request] goes in, a
// [Stream] of typed [Event]s comes out, and failures are reported as typed
// facts ([HTTPError], [APIError], [ConnectError], [ErrIncomplete],
// [ErrStreamIdle], ...). It holds no policy: whether a failure is retried is
// decided in modelclient's classifier alone.
package transport

import (
	"context"
	"iter"
	"net/http"
)

// Request is one Responses API request, fully built. Transports send it
// as-is; the model client rebuilds it (headers included) for every attempt,
// so a refreshed token is picked up.
type Request struct {
	// URL is the full HTTP(S) URL of the responses endpoint, query included.
	URL string
	// Header holds every header to send (auth, session ids, provider headers).
	Header http.Header
	// Body is the JSON request body.
	Body []byte
	// Parts, when set, is the body instead of Body: its parts in order,
	// sent as they lie without being joined (a history holding a 120 MiB
	// call is not copied into a body of its own; issue 42).
	Parts [][]byte
	// PreviousResponseID and Incremental are an optional shorter form of
	// the same request: Incremental carries only the input added since
	// response PreviousResponseID, chained on it. A transport that keeps
	// a connection (WebSocket) sends it when that response was the last
	// one on the connection; others ignore it.
	PreviousResponseID string
	Incremental        []byte
}

// Payload is the body's parts in order: Parts, or Body as one part.
func (r *Request) Payload() [][]byte {
	if r.Parts != nil {
		return r.Parts
	}
	return [][]byte{r.Body}
}

// Transport opens Responses streams. Implementations are safe for
// concurrent use.
type Transport interface {
	// Open sends req and returns the stream of its events. The stream is
	// bound to ctx; the caller must Close it. Failures before the first event
	// (status, connect) are returned here, not from the stream.
	Open(ctx context.Context, req *Request) (Stream, error)
}

// Stream is one response's events, read once by ranging over Events:
//
//	for ev := range st.Events() {
//		...
//	}
//	if err := st.Err(); err != nil {
//		...
//	}
//
// The events are pushed to the loop's body as the transport reads them, with
// no goroutine or coroutine in between.
type Stream interface {
	// Events yields the stream's events in order. It ends at the end of the
	// stream, on error (Err tells which) or when the loop stops early. A
	// stream is ranged over once.
	Events() iter.Seq[Event]
	// Err is nil once a [Completed] event has been delivered; otherwise it
	// says why the stream stopped ([ErrIncomplete] for EOF without
	// response.completed).
	Err() error
	// Close releases the stream. It is idempotent.
	Close() error
}
