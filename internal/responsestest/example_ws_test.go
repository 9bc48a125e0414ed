package responsestest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/coder/websocket"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// The script of the SSE example, replayed over WebSocket: the 429 refuses
// the first handshake, the second connection is dropped mid-stream, and a
// third connection gets the reply. Requests records which connection each
// message came on.
func Example_webSocket() {
	srv := rt.New(rt.Script{
		rt.Status(http.StatusTooManyRequests, "Retry-After", "2"),
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "hel"), rt.Drop()),
		rt.Reply("r2", "m1", "hello world"),
	}, rt.Options{})
	srv.Start()
	defer srv.Close()

	ctx := context.Background()
	opts := &websocket.DialOptions{HTTPClient: srv.Client()}
	for attempt := 1; attempt <= 3; attempt++ {
		conn, resp, err := websocket.Dial(ctx, srv.URL+"/responses", opts)
		if err != nil {
			fmt.Printf("attempt %d: handshake %d, Retry-After %s\n", attempt, resp.StatusCode, resp.Header.Get("Retry-After"))
			continue
		}
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-5"}`)); err != nil {
			fmt.Println("write:", err)
			return
		}
		var text strings.Builder
		for {
			_, msg, err := conn.Read(ctx)
			if err != nil {
				fmt.Printf("attempt %d: connection broke after %q\n", attempt, text.String())
				break
			}
			var ev struct{ Type, Delta string }
			_ = json.Unmarshal(msg, &ev)
			text.WriteString(ev.Delta)
			if ev.Type == "response.completed" {
				fmt.Printf("attempt %d: %q\n", attempt, text.String())
				break
			}
		}
		_ = conn.CloseNow()
	}
	for _, r := range srv.Requests() {
		fmt.Printf("%s attempt %d on connection %d\n", r.Method, r.Attempt, r.Conn)
	}
	// Output:
	// attempt 1: handshake 429, Retry-After 2
	// attempt 2: connection broke after "hel"
	// attempt 3: "hello world"
	// GET attempt 0 on connection 0
	// WS attempt 1 on connection 1
	// WS attempt 2 on connection 2
}
