package sse_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

const (
	createdEvent   = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"}}\n\n"
	loremDelta     = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"content_index\":0,\"delta\":\"lorem \",\"item_id\":\"msg_1\",\"output_index\":0}\n\n"
	completedEvent = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\"}}\n\n"
)

// deltaStream is an SSE body of n "lorem " text deltas (the whole-binary
// benchmark's stream, as the server writes it) between response.created
// and response.completed, generated as it is read.
type deltaStream struct {
	n    int    // deltas still to come
	rest string // the rest of the event being read
	done bool   // response.completed was queued
}

func (d *deltaStream) Read(p []byte) (int, error) {
	read := 0
	for read < len(p) {
		if d.rest == "" {
			switch {
			case d.n > 0:
				d.n--
				d.rest = loremDelta
			case !d.done:
				d.done = true
				d.rest = completedEvent
			default:
				if read == 0 {
					return 0, io.EOF
				}
				return read, nil
			}
		}
		c := copy(p[read:], d.rest)
		d.rest = d.rest[c:]
		read += c
	}
	return read, nil
}

// streamTransport answers every request with a fresh deltaStream of n deltas.
type streamTransport struct{ n int }

func (s streamTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(&deltaStream{n: s.n, rest: createdEvent})}, nil
}

// BenchmarkStreamDeltas is the client's per-event cost on a long stream:
// the SSE framing and the decode of each delta into a transport.Event,
// read from memory (no network, no server). One op is one delta event: a
// stream of b.N deltas is read, so ns/op, B/op and allocs/op are per event.
func BenchmarkStreamDeltas(b *testing.B) {
	tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: streamTransport{n: b.N}}})
	b.ReportAllocs()
	b.SetBytes(int64(len(loremDelta)))
	b.ResetTimer()
	s, err := tr.Open(b.Context(), &transport.Request{URL: "http://bench.invalid/v1/responses", Body: []byte(`{}`)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	deltas := 0
	for ev := range s.Events() {
		if d, ok := ev.(transport.TextDelta); ok && d.Delta == "lorem " && d.ItemID == "msg_1" {
			deltas++
		}
	}
	if s.Err() != nil || deltas != b.N {
		b.Fatalf("stream ended with %v after %d deltas; want nil after %d", s.Err(), deltas, b.N)
	}
}

// chunkedBody answers every request with body, read in reads of at most 64
// KiB (as from a socket).
type chunkedBody string

func (b chunkedBody) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(&limitedReads{s: string(b)})}, nil
}

type limitedReads struct{ s string }

func (l *limitedReads) Read(p []byte) (int, error) {
	if l.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 64<<10)], l.s)
	l.s = l.s[n:]
	return n, nil
}

// BenchmarkStreamLargeDelta is one 10 MiB text delta (issue 30's big
// payload) read and decoded from memory: the SSE framing and the decode,
// no network. The delta's text is a substring of the event's data.
func BenchmarkStreamLargeDelta(b *testing.B) {
	text := strings.Repeat("lorem ipsum ", 10<<20/12)
	body := createdEvent + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"content_index\":0,\"delta\":\"" +
		text + "\",\"item_id\":\"msg_1\",\"output_index\":0}\n\n" + completedEvent
	tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: chunkedBody(body)}})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := tr.Open(b.Context(), &transport.Request{URL: "http://bench.invalid/v1/responses", Body: []byte(`{}`)})
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for ev := range s.Events() {
			if d, ok := ev.(transport.TextDelta); ok {
				got += len(d.Delta)
			}
		}
		s.Close()
		if s.Err() != nil || got != len(text) {
			b.Fatalf("stream ended with %v after %d bytes of text; want nil after %d", s.Err(), got, len(text))
		}
	}
}
