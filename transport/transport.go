// Package transport is the contract between the model client and the wire
// transports (transport/sse, transport/ws): a [Request] goes in, a
// [Stream] of typed [Event]s comes out, and failures are reported as typed
// facts ([HTTPError], [APIError], [ConnectError], [ErrIncomplete],
// [ErrStreamIdle], ...). It holds no policy: whether a failure is retried is
// decided in modelclient's classifier alone.
package transport

import (
	"context"
	"io"
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

// PartsReader reads parts in order as one body, without joining them:
// each Read fills p from as many parts as fit, so a body of 100,000 small
// items (a long resumed history) leaves in writes of the caller's buffer
// size, not one write per item.
func PartsReader(parts [][]byte) io.Reader { return &partsReader{parts: parts} }

type partsReader struct {
	parts [][]byte // never written: a retry reads them again
	i, at int      // the next byte: parts[i][at]
}

func (r *partsReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.parts) {
		c := copy(p[n:], r.parts[r.i][r.at:])
		n, r.at = n+c, r.at+c
		if r.at == len(r.parts[r.i]) {
			r.i, r.at = r.i+1, 0
		}
	}
	if n == 0 && r.i == len(r.parts) {
		return 0, io.EOF
	}
	return n, nil
}
