package sse_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

// bufPipe is a pipe with a buffer, as a socket is: writes never wait, a
// read returns everything written so far (waiting if there is nothing).
type bufPipe struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
	more   chan struct{} // signalled (without blocking) on every write
}

func newBufPipe() *bufPipe { return &bufPipe{more: make(chan struct{}, 1)} }

func (p *bufPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.buf.Write(b)
	p.mu.Unlock()
	select {
	case p.more <- struct{}{}:
	default:
	}
	return len(b), nil
}

func (p *bufPipe) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.more <- struct{}{}:
	default:
	}
	return nil
}

func (p *bufPipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.buf.Len() > 0 {
			n, _ := p.buf.Read(b)
			p.mu.Unlock()
			return n, nil
		}
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return 0, io.EOF
		}
		<-p.more
	}
}

// countingBody counts the reads that returned bytes.
type countingBody struct {
	r     io.Reader
	reads int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.reads++
	}
	return n, err
}

func (c *countingBody) Close() error { return nil }

type bodyOnce struct{ body io.ReadCloser }

func (b bodyOnce) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b.body}, nil
}

// TestReadBatch: a server writes 100 deltas 100 µs apart (on the fake
// clock). Reading as bytes arrive takes a read per event; with ReadBatch
// 1 ms the stream reads the ten or so events of each millisecond together,
// and every event still arrives, in order, at most 1 ms late.
func TestReadBatch(t *testing.T) {
	for _, tc := range []struct {
		batch              time.Duration
		minReads, maxReads int
	}{
		{0, 100, 102},
		{time.Millisecond, 9, 13},
	} {
		t.Run(tc.batch.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pw := newBufPipe()
				written := make(chan time.Time, 102)
				go func() {
					io.WriteString(pw, createdEvent)
					written <- time.Now()
					for range 100 {
						time.Sleep(100 * time.Microsecond)
						io.WriteString(pw, loremDelta)
						written <- time.Now()
					}
					io.WriteString(pw, completedEvent)
					written <- time.Now()
					pw.Close()
				}()
				body := &countingBody{r: pw}
				tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: bodyOnce{body}}, ReadBatch: tc.batch})
				s, err := tr.Open(t.Context(), &transport.Request{URL: "http://batch.invalid/v1/responses", Body: []byte(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				deltas := 0
				for ev := range s.Events() {
					at := <-written
					if late := time.Since(at); late > tc.batch {
						t.Errorf("event %d read %v after it was written; want at most %v", deltas, late, tc.batch)
					}
					if _, ok := ev.(transport.TextDelta); ok {
						deltas++
					}
				}
				if s.Err() != nil || deltas != 100 {
					t.Fatalf("stream ended with %v after %d deltas; want nil after 100", s.Err(), deltas)
				}
				if body.reads < tc.minReads || body.reads > tc.maxReads {
					t.Errorf("%d reads; want %d to %d", body.reads, tc.minReads, tc.maxReads)
				}
			})
		})
	}
}
