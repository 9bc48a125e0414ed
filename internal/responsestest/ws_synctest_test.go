package responsestest_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// The WebSocket counterparts of synctest_test.go: coder/websocket over
// PipeClient inside a bubble, where the fake clock only advances once the
// client, the handler and the connection's reader are all parked.

func TestSynctestWSStallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r1"), rt.Stall(), rt.Completed("r1"))})
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		conn := mustDialWS(t, ctx, srv.PipeClient(), wsURL(srv))
		send(t, ctx, conn, create)
		got, err := readUntil(ctx, conn, "response.completed")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("read error = %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 5*time.Minute {
			t.Errorf("read failed after %v of fake time, want exactly 5m", got)
		}
		if diff := cmp.Diff([]string{"response.created"}, msgTypes(got)); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
}

// TestSynctestWSIdleTimeout runs a per-read idle timeout, the way a client
// enforces stream_idle_timeout, against pings and sleeps: pings are not
// messages, so only the Sleep's fake time decides.
func TestSynctestWSIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(
			rt.Created("r1"),
			rt.Sleep(10*time.Second), rt.Comment("ka"),
			rt.Sleep(10*time.Second), rt.TextDelta("m1", "late"),
			rt.Sleep(time.Hour), rt.Completed("r1"),
		)})
		conn := mustDialWS(t, t.Context(), srv.Client(), wsURL(srv))
		send(t, t.Context(), conn, create)

		const idle = 30 * time.Second
		start := time.Now()
		var log []string
		for {
			ctx, cancel := context.WithTimeout(t.Context(), idle)
			_, b, err := conn.Read(ctx)
			cancel()
			if err != nil {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("read error = %v, want context.DeadlineExceeded", err)
				}
				log = append(log, "idle at "+time.Since(start).String())
				break
			}
			log = append(log, jsonType(b)+" at "+time.Since(start).String())
		}
		want := []string{"response.created at 0s", "response.output_text.delta at 20s", "idle at 50s"}
		if diff := cmp.Diff(want, log); diff != "" {
			t.Errorf("timeline (-want +got):\n%s", diff)
		}
	})
}

func TestSynctestWSStallRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{
			rt.Stream(rt.Created("r1"), rt.Stall(), rt.Completed("r1")),
			rt.Reply("r2", "m2", "again"),
		})
		conn := mustDialWS(t, t.Context(), srv.PipeClient(), wsURL(srv))
		send(t, t.Context(), conn, create)
		type result struct {
			msgs []wsMsg
			err  error
		}
		done := make(chan result, 1)
		go func() {
			msgs, err := readUntil(t.Context(), conn, "response.completed")
			done <- result{msgs, err}
		}()

		synctest.Wait() // the client reading, the handler stalled
		select {
		case r := <-done:
			t.Fatalf("stream finished before Release: %+v", r)
		default:
		}
		srv.Release()
		r := <-done
		if r.err != nil {
			t.Fatalf("read: %v", r.err)
		}
		if diff := cmp.Diff([]string{"response.created", "response.completed"}, msgTypes(r.msgs)); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}

		// The connection is reused for the next response.
		send(t, t.Context(), conn, create)
		if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
			t.Fatalf("second response: %v", err)
		}
		var conns []int
		for _, r := range srv.Requests() {
			conns = append(conns, r.Conn)
		}
		if diff := cmp.Diff([]int{1, 1}, conns); diff != "" {
			t.Errorf("connections (-want +got):\n%s", diff)
		}
	})
}

func TestSynctestWSHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Status(426), rt.Hang()})
		_, resp, err := dialWS(t, t.Context(), srv.Client(), wsURL(srv))
		if err == nil || resp == nil || resp.StatusCode != 426 {
			t.Fatalf("dial: response %+v, error %v; want status 426", resp, err)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		defer cancel()
		start := time.Now()
		if _, _, err := dialWS(t, ctx, srv.Client(), wsURL(srv)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("dial to a Hang: error %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 15*time.Second {
			t.Errorf("dial failed after %v of fake time, want exactly 15s", got)
		}
	})
}

func TestSynctestWSEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r1"), rt.End())})
		conn := mustDialWS(t, t.Context(), srv.Client(), wsURL(srv))
		send(t, t.Context(), conn, create)
		start := time.Now()
		_, err := readUntil(t.Context(), conn, "none")
		if got := websocket.CloseStatus(err); got != websocket.StatusNormalClosure {
			t.Errorf("close status = %v (%v), want StatusNormalClosure", got, err)
		}
		// The close handshake completes at once; no 5s close timeout.
		if got := time.Since(start); got != 0 {
			t.Errorf("close took %v of fake time, want 0", got)
		}
	})
}
