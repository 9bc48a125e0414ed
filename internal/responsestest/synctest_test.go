package responsestest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// These tests run inside synctest bubbles, where time is fake and only
// advances once every goroutine is durably blocked. They finish in no real
// time only because PipeClient keeps all I/O on in-bubble pipes.

func TestSynctestHangTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Hang()})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		start := time.Now()
		resp, err := post(ctx, srv.PipeClient(), srv.URL+"/responses", `{}`)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("post to a Hang: got status %d, want a timeout", resp.StatusCode)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("post error = %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("timed out after %v of fake time, want exactly 30s", got)
		}
	})
}

func TestSynctestStallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r1"), rt.Stall(), rt.Completed("r1"))})
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		resp, err := post(ctx, srv.Client(), srv.URL+"/responses", `{}`)
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		defer resp.Body.Close()
		evs, err := readEvents(resp.Body)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("read error = %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 5*time.Minute {
			t.Errorf("read failed after %v of fake time, want exactly 5m", got)
		}
		if diff := cmp.Diff([]string{"response.created"}, types(evs)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

func TestSynctestStallRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r1"), rt.Stall(), rt.Completed("r1"))})
		type result struct {
			evs []event
			err error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := post(t.Context(), srv.PipeClient(), srv.URL+"/responses", `{}`)
			if err != nil {
				done <- result{err: err}
				return
			}
			defer resp.Body.Close()
			evs, err := readEvents(resp.Body)
			done <- result{evs, err}
		}()

		synctest.Wait() // everything is parked: the client reading, the handler stalled
		select {
		case r := <-done:
			t.Fatalf("stream finished before Release: %+v", r)
		default:
		}

		srv.Release()
		r := <-done
		if r.err != nil {
			t.Fatalf("reading events: %v", r.err)
		}
		if diff := cmp.Diff([]string{"response.created", "response.completed"}, types(r.evs)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

func TestSynctestCloseReleasesHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Hang()})
		errc := make(chan error, 1)
		go func() {
			resp, err := post(t.Context(), srv.PipeClient(), srv.URL+"/responses", `{}`)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		synctest.Wait() // the handler is parked in Hang
		if n := len(srv.Requests()); n != 1 {
			t.Fatalf("recorded %d requests before Close, want 1", n)
		}
		srv.Close()
		if err := <-errc; err == nil {
			t.Error("post to a Hang after Close: got a response, want a connection error")
		}
	})
}

// TestSynctestUnexpected checks NewPipeServer wires tb.Errorf too.
func TestSynctestUnexpected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &fakeTB{TB: t}
		srv := rt.NewPipeServer(fake, nil)
		resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("status = %d, want 500", resp.StatusCode)
		}
		want := []string{"responsestest: unexpected request #1 (script has 0 attempts)"}
		if diff := cmp.Diff(want, fake.errors()); diff != "" {
			t.Errorf("Errorf calls (-want +got):\n%s", diff)
		}
	})
}
