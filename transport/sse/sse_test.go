package sse_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

func open(t *testing.T, srv *rt.Server, opts sse.Options) (transport.Stream, error) {
	t.Helper()
	opts.HTTPClient = srv.Client()
	return sse.New(&opts).Open(t.Context(), &transport.Request{
		URL:  srv.URL + "/responses",
		Body: []byte(`{"model":"m"}`),
	})
}

// drain reads a stream to its end and returns the events' Go types and the error.
func drain(s transport.Stream) ([]string, error) {
	defer s.Close()
	var got []string
	for e := range s.Events() {
		switch e := e.(type) {
		case transport.TextDelta:
			got = append(got, "delta:"+e.Delta)
		case transport.Completed:
			got = append(got, "completed")
		case transport.Created:
			got = append(got, "created")
		case transport.OutputItemDone:
			got = append(got, "done:"+e.Item.Text())
		case transport.Unknown:
			got = append(got, "unknown:"+e.Type)
		default:
			got = append(got, "other")
		}
	}
	return got, s.Err()
}

func TestStream(t *testing.T) {
	tests := []struct {
		name    string
		steps   []rt.Step
		want    []string
		wantErr error
	}{
		{"happy path", []rt.Step{rt.Created("r"), rt.TextDelta("m", "a"), rt.MessageDone("m", "a"), rt.Completed("r")},
			[]string{"created", "delta:a", "done:a", "completed"}, nil},
		{"EOF before completed", []rt.Step{rt.Created("r"), rt.TextDelta("m", "a"), rt.End()},
			[]string{"created", "delta:a"}, transport.ErrIncomplete},
		{"unknown events and comments are skipped", []rt.Step{rt.Comment("keepalive"), rt.Event("response.brand_new", nil), rt.Completed("r")},
			[]string{"completed"}, nil},
		{"an unnamed unknown event is decoded", []rt.Step{rt.Raw("data: {\"type\":\"response.brand_new\"}\n\n"), rt.Completed("r")},
			[]string{"unknown:response.brand_new", "completed"}, nil},
		{"malformed JSON line is skipped", []rt.Step{rt.Raw("data: {not json\n\n"), rt.TextDelta("m", "b"), rt.Completed("r")},
			[]string{"delta:b", "completed"}, nil},
		{"CRLF framing", []rt.Step{rt.Raw("event: response.output_text.delta\r\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"c\"}\r\n\r\n"), rt.Completed("r")},
			[]string{"delta:c", "completed"}, nil},
		{"data without type uses the event name", []rt.Step{rt.Raw("event: response.output_text.delta\ndata: {\"delta\":\"d\"}\n\n"), rt.Completed("r")},
			[]string{"delta:d", "completed"}, nil},
		{"[DONE] is ignored", []rt.Step{rt.Raw("data: [DONE]\n\n"), rt.Completed("r")}, []string{"completed"}, nil},
		{"giant event", []rt.Step{rt.TextDelta("m", strings.Repeat("x", 1<<20)), rt.Completed("r")},
			[]string{"delta:" + strings.Repeat("x", 1<<20), "completed"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Stream(tt.steps...)})
			s, err := open(t, srv, sse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := drain(s)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v; want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropIsReadError(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "a"), rt.Drop())})
	s, err := open(t, srv, sse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = drain(s)
	var re *transport.ReadError
	if !errors.As(err, &re) {
		t.Errorf("err = %v (%T); want *transport.ReadError", err, err)
	}
}

func TestHTTPError(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Error(429, "rate_limit", "rate_limit_exceeded", "slow down", "Retry-After", "3", "x-request-id", "req_1")})
	_, err := open(t, srv, sse.Options{})
	var he *transport.HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v; want *transport.HTTPError", err)
	}
	if he.StatusCode != 429 || he.Header.Get("Retry-After") != "3" || he.RequestID() != "req_1" || !strings.Contains(string(he.Body), "slow down") {
		t.Errorf("HTTPError = %+v", he)
	}
}

func TestRequestHeadersAndBody(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "x")})
	s, err := sse.New(&sse.Options{HTTPClient: srv.Client()}).Open(t.Context(), &transport.Request{
		URL: srv.URL + "/responses?api-version=1", Header: map[string][]string{"Authorization": {"Bearer k"}}, Body: []byte(`{"a":1}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	drain(s)
	r := srv.Requests()[0]
	if r.Method != "POST" || r.Path != "/v1/responses" || r.Query.Get("api-version") != "1" ||
		r.Header.Get("Accept") != "text/event-stream" || r.Header.Get("Content-Type") != "application/json" ||
		r.Header.Get("Authorization") != "Bearer k" || string(r.Body) != `{"a":1}` {
		t.Errorf("request = %+v", r)
	}
}

// The following run on synctest's fake clock through in-memory pipes.

func TestFailedEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Failed("r", "server_error", "boom"), rt.Stall())})
		start := time.Now()
		s, err := open(t, srv, sse.Options{IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(s)
		var ae *transport.APIError
		if !errors.As(err, &ae) || ae.Code != "server_error" {
			t.Errorf("err = %v; want APIError server_error", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("response.failed took %v to surface; want 0 (no wait for EOF or idle)", d)
		}
	})
}

func TestCompletedDoesNotWaitForEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Completed("r"), rt.Stall())})
		start := time.Now()
		s, err := open(t, srv, sse.Options{IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(s); err != nil {
			t.Errorf("err = %v; want nil", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("took %v; want 0", d)
		}
	})
}

func TestIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "a"), rt.Stall())})
		start := time.Now()
		s, err := open(t, srv, sse.Options{IdleTimeout: 300 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(s)
		if !errors.Is(err, transport.ErrStreamIdle) {
			t.Errorf("err = %v; want ErrStreamIdle", err)
		}
		if d := time.Since(start); d != 300*time.Second {
			t.Errorf("idle timeout fired after %v; want 300s", d)
		}
	})
}

func TestIdleBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Hang()})
		start := time.Now()
		_, err := open(t, srv, sse.Options{IdleTimeout: 10 * time.Second})
		if !errors.Is(err, transport.ErrStreamIdle) {
			t.Errorf("err = %v; want ErrStreamIdle", err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("took %v; want 10s", d)
		}
	})
}

// TestKeepAlivesAreNotLiveness: the idle timer is Codex's
// stream_idle_timeout_ms, time without an event or its data: keep-alive
// comments do not count. A server that sends only comments every second
// against a 3 s timer ends at 3 s (it kept agent waiting 45 s before).
func TestKeepAlivesAreNotLiveness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := []rt.Step{rt.Created("r")}
		for range 60 {
			steps = append(steps, rt.Sleep(time.Second), rt.Comment("keep-alive"))
		}
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(steps...)})
		start := time.Now()
		s, err := open(t, srv, sse.Options{IdleTimeout: 3 * time.Second, ProgressTimeout: 100 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(s)
		if !errors.Is(err, transport.ErrStreamIdle) {
			t.Errorf("err = %v; want ErrStreamIdle", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("took %v; want 3s", d)
		}
	})
}

func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Stall())})
		ctx, cancel := context.WithCancel(t.Context())
		s, err := sse.New(&sse.Options{HTTPClient: srv.Client()}).Open(ctx, &transport.Request{URL: srv.URL + "/responses"})
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(5*time.Second, cancel)
		_, err = drain(s)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v; want context.Canceled", err)
		}
	})
}

// TestSlowLargeEventIsNotIdle: a 15 KB event arriving at 1 KB/s against
// a 5 s idle timer completes: the timer counts bytes, not events.
func TestSlowLargeEventIsNotIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		text := strings.Repeat("z", 15<<10)
		event := `data: {"type":"response.output_item.done","item":{"type":"message","role":"assistant","id":"m","content":[{"type":"output_text","text":"` + text + `"}]}}` + "\n\n"
		steps := []rt.Step{rt.Created("r")}
		for len(event) > 0 {
			n := min(len(event), 1<<10)
			steps = append(steps, rt.Raw(event[:n]), rt.Sleep(time.Second))
			event = event[n:]
		}
		steps = append(steps, rt.Completed("r"))
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(steps...)})
		s, err := open(t, srv, sse.Options{IdleTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(s)
		if err != nil || len(got) != 3 || got[1] != "done:"+text {
			t.Errorf("events %d, err %v; want created, the message, completed", len(got), err)
		}
	})
}

// TestEventTooLargeFailsAtOnce: an event over the limit ends the stream
// with ErrEventTooLarge (which is not retried).
func TestEventTooLargeFailsAtOnce(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", strings.Repeat("x", 4<<10)), rt.Completed("r"))})
	s, err := open(t, srv, sse.Options{MaxEventSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(s)
	if !errors.Is(err, transport.ErrEventTooLarge) || len(got) != 1 {
		t.Errorf("events %v, err %v; want created, then ErrEventTooLarge", got, err)
	}
}

// TestFramings: the ways servers and gateways frame the same events (line
// ends, a BOM, comments and ids, data split over lines, the type in the
// event name only), read in one piece and a byte at a time, give the same
// events; an unterminated last event is dropped, so the stream is
// incomplete.
func TestFramings(t *testing.T) {
	const (
		created   = `{"type":"response.created","response":{"id":"r"}}`
		delta     = `{"type":"response.output_text.delta","item_id":"m","delta":"hi"}`
		completed = `{"type":"response.completed","response":{"id":"r"}}`
	)
	want := []string{"created", "delta:hi", "completed"}
	for _, tc := range []struct {
		name, body string
		want       []string
		err        error
	}{
		{"lf", "data: " + created + "\n\ndata: " + delta + "\n\ndata: " + completed + "\n\n", want, nil},
		{"crlf", "data: " + created + "\r\n\r\ndata: " + delta + "\r\n\r\ndata: " + completed + "\r\n\r\n", want, nil},
		{"cr", "data: " + created + "\r\rdata: " + delta + "\r\rdata: " + completed + "\r\r", want, nil},
		{"bom, comments, ids, retry", "\xEF\xBB\xBF: hello\n\nid: 1\ndata: " + created + "\n\nretry: 10\n: ping\ndata:" + delta + "\n\nid: 3\ndata: " + completed + "\n\n", want, nil},
		{"data over lines", "data: " + created + "\n\ndata: {\"type\":\"response.output_text.delta\",\ndata: \"item_id\":\"m\",\"delta\":\"hi\"}\n\ndata: " + completed + "\n\n", want, nil},
		{"type in the event name", "event: response.created\ndata: {\"response\":{\"id\":\"r\"}}\n\nevent: response.output_text.delta\ndata: {\"item_id\":\"m\",\"delta\":\"hi\"}\n\nevent: response.completed\ndata: {\"response\":{\"id\":\"r\"}}\n\n", want, nil},
		{"[DONE] and empty data skipped", "data: " + created + "\n\ndata:\n\ndata: [DONE]\n\ndata: " + delta + "\n\ndata: " + completed + "\n\n", want, nil},
		{"unterminated last event", "data: " + created + "\n\ndata: " + delta + "\n\ndata: " + completed, []string{"created", "delta:hi"}, transport.ErrIncomplete},
	} {
		for _, oneByte := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/one byte %v", tc.name, oneByte), func(t *testing.T) {
				var body io.Reader = strings.NewReader(tc.body)
				if oneByte {
					body = iotest.OneByteReader(body)
				}
				tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: bodyOnce{io.NopCloser(body)}}})
				s, err := tr.Open(t.Context(), &transport.Request{URL: "http://framing.invalid/v1/responses", Body: []byte(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				got, err := drain(s)
				if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
					t.Errorf("err = %v; want %v", err, tc.err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// slowUpload sends a request's body at one chunk per gap (a slow uplink),
// then passes the request on to next.
type slowUpload struct {
	next  http.RoundTripper
	chunk int
	gap   time.Duration
}

func (s slowUpload) RoundTrip(r *http.Request) (*http.Response, error) {
	var sent []byte
	buf := make([]byte, s.chunk)
	for {
		select {
		case <-time.After(s.gap):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		n, err := io.ReadFull(r.Body, buf)
		sent = append(sent, buf[:n]...)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	r2 := r.Clone(r.Context())
	r2.Body, r2.GetBody = io.NopCloser(strings.NewReader(string(sent))), nil
	return s.next.RoundTrip(r2)
}

// TestSlowUploadIsNotIdle: a 1 MiB request sent at 64 KiB every 4 s (64 s
// in all) against a 5 s idle timer is answered: the timer counts bytes
// written as well as read. An uplink that stalls longer than the timer
// ends the request with ErrStreamIdle at the timer's 5 s.
func TestSlowUploadIsNotIdle(t *testing.T) {
	body := []byte(`{"model":"m","input":"` + strings.Repeat("u", 1<<20) + `"}`)
	for _, tc := range []struct {
		gap  time.Duration
		want error
		took time.Duration
	}{
		{gap: 4 * time.Second, want: nil, took: 17 * 4 * time.Second},
		{gap: 6 * time.Second, want: transport.ErrStreamIdle, took: 5 * time.Second},
	} {
		synctest.Test(t, func(t *testing.T) {
			srv := rt.NewPipeServer(t, rt.Script{rt.Reply("r", "m", "ok")})
			hc := srv.Client()
			hc.Transport = slowUpload{next: hc.Transport, chunk: 64 << 10, gap: tc.gap}
			start := time.Now()
			s, err := sse.New(&sse.Options{HTTPClient: hc, IdleTimeout: 5 * time.Second}).Open(t.Context(),
				&transport.Request{URL: srv.URL + "/responses", Body: body})
			if err == nil {
				_, err = drain(s)
			}
			if !errors.Is(err, tc.want) || (tc.want != nil && time.Since(start) != tc.took) {
				t.Errorf("gap %v: err %v after %v; want %v after %v", tc.gap, err, time.Since(start), tc.want, tc.took)
			}
			if tc.want == nil && time.Since(start) != tc.took {
				t.Errorf("gap %v: answered after %v; want %v (the upload's time)", tc.gap, time.Since(start), tc.took)
			}
		})
	}
}

// TestSlowServerReadIsNotIdle: a 127 KB prompt to a server that reads the
// body at 10 KB/s (12.7 s) against a 5 s idle timer is answered: the body
// was written at once (buffered like a socket's), and the idle timer
// counts from when the server has taken it, not from the last byte
// written. A server that has taken it and then says nothing still ends
// at the timer.
func TestSlowServerReadIsNotIdle(t *testing.T) {
	body := []byte(`{"model":"m","input":"` + strings.Repeat("p", 127<<10) + `"}`)
	for _, tc := range []struct {
		name    string
		attempt rt.Attempt
		want    error
	}{
		{"answers", rt.Reply("r", "m", "ok"), nil},
		{"silent after reading", rt.Hang(), transport.ErrStreamIdle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := rt.New(rt.Script{tc.attempt}, rt.Options{BodyRate: 10 << 10})
				defer srv.Close()
				start := time.Now()
				s, err := sse.New(&sse.Options{HTTPClient: srv.PipeClient(), IdleTimeout: 5 * time.Second}).Open(t.Context(),
					&transport.Request{URL: srv.URL + "/responses", Body: body})
				if err == nil {
					_, err = drain(s)
				}
				read := time.Duration(len(body)/(1<<10)) * time.Second / 10 // a tenth of the rate each 100 ms
				if !errors.Is(err, tc.want) {
					t.Fatalf("err %v after %v; want %v (the server takes %v to read the body)", err, time.Since(start), tc.want, read)
				}
				if d := time.Since(start); tc.want != nil && (d < read+4*time.Second || d > read+6*time.Second) {
					t.Errorf("ended after %v; want the 5 s timer counted from about when the body was read (%v; the watch looks every 625 ms)", d, read)
				}
			})
		})
	}
}
