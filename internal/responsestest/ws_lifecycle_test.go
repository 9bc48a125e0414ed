package responsestest_test

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// Lifecycle of WebSocket connections: Stall, Hang, server Close and
// concurrent use.

func TestWSStallRelease(t *testing.T) {
	script := rt.Script{rt.Stream(rt.Created("r1"), rt.Barrier("stalled"), rt.Stall(), rt.Completed("r1"))}
	overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
		conn := mustDialWS(t, t.Context(), c, wsURL(srv))
		send(t, t.Context(), conn, create)
		<-srv.Reached("stalled")
		srv.Release()
		got, err := readUntil(t.Context(), conn, "response.completed")
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if diff := cmp.Diff([]string{"response.created", "response.completed"}, msgTypes(got)); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
}

func TestWSCloseWhileStalled(t *testing.T) {
	script := rt.Script{rt.Stream(rt.Created("r1"), rt.Barrier("stalled"), rt.Stall(), rt.Completed("r1"))}
	overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
		conn := mustDialWS(t, t.Context(), c, wsURL(srv))
		send(t, t.Context(), conn, create)
		<-srv.Reached("stalled")
		srv.Close() // must not wait for the client
		got, err := readUntil(t.Context(), conn, "response.completed")
		if err == nil || websocket.CloseStatus(err) != -1 {
			t.Errorf("read after Close: %v, want an abrupt end (no close frame)", err)
		}
		if diff := cmp.Diff([]string{"response.created"}, msgTypes(got)); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
		if _, _, err := dialWS(t, t.Context(), c, wsURL(srv)); err == nil {
			t.Error("dial after Close: got a connection, want an error")
		}
	})
}

// TestWSCloseIdle checks Close ends an idle connection, one waiting for
// its next response.create.
func TestWSCloseIdle(t *testing.T) {
	overWS(t, rt.Script{rt.Reply("r1", "m1", "x")}, func(t *testing.T, srv *rt.Server, c *http.Client) {
		conn := mustDialWS(t, t.Context(), c, wsURL(srv))
		send(t, t.Context(), conn, create)
		if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
			t.Fatalf("read: %v", err)
		}
		srv.Close()
		if _, _, err := conn.Read(t.Context()); err == nil {
			t.Error("read after Close: got a message, want an error")
		}
	})
}

func TestWSHang(t *testing.T) {
	t.Run("handshake", func(t *testing.T) {
		overWS(t, rt.Script{rt.Hang()}, func(t *testing.T, srv *rt.Server, c *http.Client) {
			srv.Release() // a released Hang drops the connection at once
			if _, _, err := dialWS(t, t.Context(), c, wsURL(srv)); err == nil {
				t.Fatal("dial to a released Hang: got a connection, want an error")
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want 1", n)
			}
		})
	})
	t.Run("message", func(t *testing.T) {
		script := rt.Script{rt.Reply("r1", "m1", "x"), rt.Hang()}
		overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
			conn := mustDialWS(t, t.Context(), c, wsURL(srv))
			send(t, t.Context(), conn, create)
			if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
				t.Fatalf("read: %v", err)
			}
			send(t, t.Context(), conn, create)
			srv.Release()
			_, err := readUntil(t.Context(), conn, "none")
			if err == nil || websocket.CloseStatus(err) != -1 {
				t.Errorf("read from a released Hang: %v, want an abrupt end", err)
			}
		})
	})
}

// TestMixedTransportsUseAttemptsOnce races SSE posts against WebSocket
// messages on separate connections: every attempt is used exactly once.
func TestMixedTransportsUseAttemptsOnce(t *testing.T) {
	const n = 10
	var script rt.Script
	for i := range n {
		script = append(script, rt.Reply("r"+strconv.Itoa(i), "m", "x"))
	}
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, script)
			c := tr.client(srv)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if i%2 == 0 {
						resp, err := post(t.Context(), c, srv.URL+"/responses", `{}`)
						if err != nil {
							t.Errorf("post: %v", err)
							return
						}
						defer resp.Body.Close()
						if _, err := readEvents(resp.Body); err != nil {
							t.Errorf("read SSE: %v", err)
						}
						return
					}
					conn, _, err := websocket.Dial(t.Context(), wsURL(srv), &websocket.DialOptions{HTTPClient: c})
					if err != nil {
						t.Errorf("dial: %v", err)
						return
					}
					defer conn.CloseNow()
					if err := conn.Write(t.Context(), websocket.MessageText, []byte(create)); err != nil {
						t.Errorf("write: %v", err)
						return
					}
					if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
						t.Errorf("read WebSocket: %v", err)
					}
				})
			}
			wg.Wait()
			var attempts, conns []int
			methods := map[string]int{}
			for _, r := range srv.Requests() {
				attempts = append(attempts, r.Attempt)
				methods[r.Method]++
				if r.Conn != 0 {
					conns = append(conns, r.Conn)
				}
			}
			slices.Sort(conns)
			if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, attempts); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, conns); diff != "" {
				t.Errorf("connections (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]int{"POST": 5, "WS": 5}, methods); diff != "" {
				t.Errorf("methods (-want +got):\n%s", diff)
			}
		})
	}
}
