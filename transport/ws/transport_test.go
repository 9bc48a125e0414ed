package ws_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/ws"
)

// returnsSoon fails the test when f has not returned within a generous
// bound: a call that would wait behind a stream never does.
func returnsSoon(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s is still waiting behind the open stream", what)
	}
}

// openStalled opens a stream on a Transport whose server stalls after
// response.created: a stream in progress that does not end by itself.
func openStalled(t *testing.T) (*ws.Transport, transport.Stream, *rt.Server) {
	t.Helper()
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Barrier("b"), rt.Stall())})
	tr := ws.NewTransport(&ws.Options{HTTPClient: srv.Client()})
	st, err := tr.Open(t.Context(), &transport.Request{URL: srv.URL + "/responses",
		Header: http.Header{"Authorization": {"Bearer k"}}, Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	<-srv.Reached("b")
	return tr, st, srv
}

// TestTransportOpenHonoursContext: while a stream is in progress, a second
// Open waits for it, but a cancelled ctx ends that wait at once with its
// cause.
func TestTransportOpenHonoursContext(t *testing.T) {
	tr, st, srv := openStalled(t)
	defer tr.Close()
	defer st.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var err error
	returnsSoon(t, "Open with a cancelled ctx", func() {
		_, err = tr.Open(ctx, &transport.Request{URL: srv.URL + "/responses", Body: []byte(`{}`)})
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("second Open: err = %v; want context.Canceled", err)
	}
}

// TestTransportCloseDoesNotWaitForStream: Close during a stream returns
// without waiting for the stream to end; the stream fails (its connection
// is gone) and the next Open dials again.
func TestTransportCloseDoesNotWaitForStream(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Barrier("b"), rt.Stall()), rt.Reply("r2", "m", "two")})
	tr := ws.NewTransport(&ws.Options{HTTPClient: srv.Client()})
	req := &transport.Request{URL: srv.URL + "/responses", Body: []byte(`{}`)}
	st, err := tr.Open(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	<-srv.Reached("b")
	returnsSoon(t, "Close", func() { _ = tr.Close() })
	if _, err := drain(st); err == nil {
		t.Error("the stream of a closed transport ended without an error")
	}
	st, err = tr.Open(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := drain(st); err != nil || len(got) == 0 || got[len(got)-1] != "completed:r2" {
		t.Errorf("after Close: events %v, err %v; want a completed response on a new connection", got, err)
	}
	if hs := srv.Handshakes(); len(hs) != 2 {
		t.Errorf("%d handshakes; want 2 (the next Open dials again)", len(hs))
	}
	_ = tr.Close()
}
