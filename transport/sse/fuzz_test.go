package sse_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

// bodyTransport answers every request with body.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b))}, nil
}

// FuzzSSEStream feeds arbitrary bytes through the SSE transport: it never
// panics, never yields an event together with an error, and ends either
// completed (Err nil, last event Completed) or with an error.
func FuzzSSEStream(f *testing.F) {
	for _, s := range []string{
		"data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\"}}\n\n",
		"event: response.output_text.delta\r\ndata: {\"delta\":\"x\"}\r\n\r\n",
		": ping\n\n: ping\n\n",
		"data: {oops\n\ndata: [DONE]\n\n",
		"data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\"}}}\n\n",
		"data:\ndata:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		s, err := tr.Open(t.Context(), &transport.Request{URL: "http://fuzz.invalid/v1/responses", Body: []byte(`{}`)})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer s.Close()
		var last transport.Event
		for ev := range s.Events() {
			if ev == nil {
				t.Fatal("Events yielded a nil event")
			}
			last = ev
		}
		_, completed := last.(transport.Completed)
		if (s.Err() == nil) != completed {
			t.Fatalf("Err = %v after last event %T", s.Err(), last)
		}
		if s.Err() != nil && errors.Is(s.Err(), transport.ErrIncomplete) && completed {
			t.Fatal("incomplete after completed")
		}
	})
}
