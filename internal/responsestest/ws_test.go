package responsestest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// wsMsg is one WebSocket data message as the client read it.
type wsMsg struct {
	Type websocket.MessageType
	Data string
}

const create = `{"type":"response.create","model":"gpt-5"}`

// dialWS opens a WebSocket to url through c, sending the header key/value
// pairs. A connection it returns is closed when the test ends.
func dialWS(t *testing.T, ctx context.Context, c *http.Client, url string, headerKV ...string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := make(http.Header)
	for i := 0; i+1 < len(headerKV); i += 2 {
		h.Add(headerKV[i], headerKV[i+1])
	}
	conn, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: c, HTTPHeader: h})
	if err == nil {
		t.Cleanup(func() { _ = conn.CloseNow() })
	}
	return conn, resp, err
}

// mustDialWS is dialWS that fails the test on error.
func mustDialWS(t *testing.T, ctx context.Context, c *http.Client, url string, headerKV ...string) *websocket.Conn {
	t.Helper()
	conn, _, err := dialWS(t, ctx, c, url, headerKV...)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return conn
}

// send writes body as one text message.
func send(t *testing.T, ctx context.Context, conn *websocket.Conn, body string) {
	t.Helper()
	if err := conn.Write(ctx, websocket.MessageText, []byte(body)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// readUntil reads messages up to and including the first whose JSON type
// is last, or until the first error.
func readUntil(ctx context.Context, conn *websocket.Conn, last string) ([]wsMsg, error) {
	var got []wsMsg
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			return got, err
		}
		got = append(got, wsMsg{typ, string(b)})
		if jsonType(b) == last {
			return got, nil
		}
	}
}

func jsonType(b []byte) string {
	var v struct{ Type string }
	_ = json.Unmarshal(b, &v)
	return v.Type
}

func msgTypes(ms []wsMsg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = jsonType([]byte(m.Data))
	}
	return out
}

// wsURL is where clients open the WebSocket.
func wsURL(srv *rt.Server) string { return srv.URL + "/responses" }

// overWS runs body once per transport with a fresh server for script.
func overWS(t *testing.T, script rt.Script, body func(t *testing.T, srv *rt.Server, c *http.Client)) {
	t.Helper()
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, script)
			body(t, srv, tr.client(srv))
		})
	}
}

func TestWSHandshakeRefused(t *testing.T) {
	tests := []struct {
		name    string
		attempt rt.Attempt
		want    int
	}{
		{"426 upgrade required", rt.Status(426), 426},
		{"401 unauthorized", rt.Error(401, "invalid_request_error", "invalid_api_key", "bad key"), 401},
		{"404 not found", rt.Status(404), 404},
		{"429 with body", rt.StatusBody(429, "slow down", "Retry-After", "3"), 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			overWS(t, rt.Script{tt.attempt, rt.Reply("r1", "m1", "hi")}, func(t *testing.T, srv *rt.Server, c *http.Client) {
				_, resp, err := dialWS(t, t.Context(), c, wsURL(srv), "Authorization", "Bearer sk-1")
				if err == nil {
					t.Fatal("dial: got a connection, want a refused handshake")
				}
				if resp == nil || resp.StatusCode != tt.want {
					t.Fatalf("dial: response %+v, error %v; want status %d", resp, err, tt.want)
				}

				// The refusal consumed one attempt; the next dial is
				// accepted and the Reply is still there.
				conn := mustDialWS(t, t.Context(), c, wsURL(srv), "Authorization", "Bearer sk-2")
				send(t, t.Context(), conn, create)
				got, err := readUntil(t.Context(), conn, "response.completed")
				if err != nil {
					t.Fatalf("reading reply: %v", err)
				}
				if n := len(got); n != 5 {
					t.Errorf("reply has %d messages, want 5", n)
				}

				type rec struct {
					Method, Auth  string
					Attempt, Conn int
				}
				summarize := func(rs []rt.Request) []rec {
					var out []rec
					for _, r := range rs {
						out = append(out, rec{r.Method, r.Header.Get("Authorization"), r.Attempt, r.Conn})
					}
					return out
				}
				wantReqs := []rec{{"GET", "Bearer sk-1", 0, 0}, {"WS", "Bearer sk-2", 1, 1}}
				if diff := cmp.Diff(wantReqs, summarize(srv.Requests())); diff != "" {
					t.Errorf("Requests (-want +got):\n%s", diff)
				}
				wantHS := []rec{{"GET", "Bearer sk-1", 0, 0}, {"GET", "Bearer sk-2", -1, 1}}
				if diff := cmp.Diff(wantHS, summarize(srv.Handshakes())); diff != "" {
					t.Errorf("Handshakes (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestWSStepWire pins the exact message each step sends over WebSocket.
// Each stream ends with a "done" event so the client knows where to stop.
func TestWSStepWire(t *testing.T) {
	text := func(s string) wsMsg { return wsMsg{websocket.MessageText, s} }
	done := text(`{"type":"done"}`)
	tests := []struct {
		name string
		step rt.Step
		want []wsMsg
	}{
		{"Created", rt.Created("r1"),
			[]wsMsg{text(`{"type":"response.created","response":{"id":"r1","status":"in_progress"}}`), done}},
		{"TextDelta", rt.TextDelta("m1", "hi <b>"),
			[]wsMsg{text(`{"type":"response.output_text.delta","content_index":0,"delta":"hi <b>","item_id":"m1","output_index":0}`), done}},
		{"Failed", rt.Failed("r1", "rate_limit_exceeded", "try again in 1.5s"),
			[]wsMsg{text(`{"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"try again in 1.5s"},"id":"r1","status":"failed"}}`), done}},
		{"Raw", rt.Raw(`{"type":"response.created",`), []wsMsg{text(`{"type":"response.created",`), done}},
		{"Binary", rt.Binary("\x00\x01hi"), []wsMsg{{websocket.MessageBinary, "\x00\x01hi"}, done}},
		{"Comment is a ping, not a message", rt.Comment("keep-alive"), []wsMsg{done}},
		{"Barrier sends nothing", rt.Barrier("b"), []wsMsg{done}},
		{"Sleep sends nothing", rt.Sleep(0), []wsMsg{done}},
		{"zero Step sends nothing", rt.Step{}, []wsMsg{done}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			overWS(t, rt.Script{rt.Stream(tt.step, rt.Event("done", nil))}, func(t *testing.T, srv *rt.Server, c *http.Client) {
				conn := mustDialWS(t, t.Context(), c, wsURL(srv))
				send(t, t.Context(), conn, create)
				got, err := readUntil(t.Context(), conn, "done")
				if err != nil {
					t.Fatalf("read: %v (after %v)", err, got)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestWSSameJSONAsSSE checks that every event of a stream carries the same
// JSON over both transports.
func TestWSSameJSONAsSSE(t *testing.T) {
	a := rt.Reply("r1", "m1", "hello big world")
	script := rt.Script{a, a}
	srv := rt.NewServer(t, script)

	resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	evs, err := readEvents(resp.Body)
	if err != nil {
		t.Fatalf("reading SSE: %v", err)
	}
	var want []wsMsg
	for _, e := range evs {
		want = append(want, wsMsg{websocket.MessageText, e.Data})
	}

	conn := mustDialWS(t, t.Context(), srv.Client(), wsURL(srv))
	send(t, t.Context(), conn, create)
	got, err := readUntil(t.Context(), conn, "response.completed")
	if err != nil {
		t.Fatalf("reading WebSocket: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WebSocket messages vs SSE data (-sse +ws):\n%s", diff)
	}
}

func TestWSRequests(t *testing.T) {
	script := rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"), rt.Reply("r3", "m3", "three")}
	overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
		url := srv.URL + "/responses?api-version=2"
		conn := mustDialWS(t, t.Context(), c, url,
			"Authorization", "Bearer sk-test", "OpenAI-Beta", "responses_websockets=2026-02-06")
		bodies := []string{
			`{"type":"response.create","input":[1]}`,
			`{"type":"response.create","previous_response_id":"r1","input":[2]}`,
		}
		for _, b := range bodies {
			send(t, t.Context(), conn, b)
			if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
				t.Fatalf("read: %v", err)
			}
		}
		// A reconnect gets a new connection number.
		_ = conn.Close(websocket.StatusNormalClosure, "")
		conn2 := mustDialWS(t, t.Context(), c, url, "Authorization", "Bearer sk-other")
		send(t, t.Context(), conn2, `{"type":"response.create","input":[3]}`)
		if _, err := readUntil(t.Context(), conn2, "response.completed"); err != nil {
			t.Fatalf("read: %v", err)
		}

		type rec struct {
			Method, Path, Query, Auth, Beta, Upgrade, Body string
			JSON                                           map[string]any
			Attempt, Conn                                  int
		}
		summarize := func(rs []rt.Request) []rec {
			var out []rec
			for _, r := range rs {
				out = append(out, rec{r.Method, r.Path, r.Query.Encode(), r.Header.Get("Authorization"),
					r.Header.Get("OpenAI-Beta"), r.Header.Get("Upgrade"), string(r.Body), r.JSON, r.Attempt, r.Conn})
			}
			return out
		}
		const beta = "responses_websockets=2026-02-06"
		want := []rec{
			{"WS", "/v1/responses", "api-version=2", "Bearer sk-test", beta, "websocket", bodies[0],
				map[string]any{"type": "response.create", "input": []any{1.0}}, 0, 1},
			{"WS", "/v1/responses", "api-version=2", "Bearer sk-test", beta, "websocket", bodies[1],
				map[string]any{"type": "response.create", "previous_response_id": "r1", "input": []any{2.0}}, 1, 1},
			{"WS", "/v1/responses", "api-version=2", "Bearer sk-other", "", "websocket",
				`{"type":"response.create","input":[3]}`,
				map[string]any{"type": "response.create", "input": []any{3.0}}, 2, 2},
		}
		got := srv.Requests()
		if diff := cmp.Diff(want, summarize(got)); diff != "" {
			t.Errorf("Requests (-want +got):\n%s", diff)
		}
		wantHS := []rec{
			{"GET", "/v1/responses", "api-version=2", "Bearer sk-test", beta, "websocket", "", nil, -1, 1},
			{"GET", "/v1/responses", "api-version=2", "Bearer sk-other", "", "websocket", "", nil, -1, 2},
		}
		if diff := cmp.Diff(wantHS, summarize(srv.Handshakes())); diff != "" {
			t.Errorf("Handshakes (-want +got):\n%s", diff)
		}

		// Copies: scribbling on them changes nothing.
		got[0].Header.Set("Authorization", "changed")
		got[0].JSON["type"] = "changed"
		if diff := cmp.Diff(want, summarize(srv.Requests())); diff != "" {
			t.Errorf("Requests changed through a copy (-want +got):\n%s", diff)
		}
	})
}

func TestWSErrorEvent(t *testing.T) {
	tests := []struct {
		name    string
		attempt rt.Attempt
		want    string
	}{
		{"Status with Retry-After", rt.Status(429, "Retry-After", "2"),
			`{"type":"error","status":429,"error":{"message":"Too Many Requests"},"headers":{"Retry-After":"2"}}`},
		{"Error", rt.Error(400, "invalid_request_error", "previous_response_not_found", "gone", "x-request-id", "req_1"),
			`{"type":"error","status":400,"error":{"message":"gone","type":"invalid_request_error","param":null,"code":"previous_response_not_found"},"headers":{"X-Request-Id":"req_1"}}`},
		{"StatusBody JSON", rt.StatusBody(500, `{"error":{"code":"server_error","message":"oops"}}`),
			`{"type":"error","status":500,"error":{"code":"server_error","message":"oops"},"headers":{}}`},
		{"StatusBody not JSON", rt.StatusBody(502, "<html>bad gateway</html>", "X-A", "1", "X-A", "2"),
			`{"type":"error","status":502,"error":{"type":null,"code":null,"message":"<html>bad gateway</html>"},"headers":{"X-A":"1, 2"}}`},
		{"no body", rt.Status(204),
			`{"type":"error","status":204,"error":{"type":null,"code":null,"message":"No Content"},"headers":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A first Reply gets the handshake accepted; the error
			// attempt then answers a message, and the connection stays
			// open for the third attempt.
			script := rt.Script{rt.Reply("r1", "m1", "a"), tt.attempt, rt.Reply("r2", "m2", "b")}
			overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
				conn := mustDialWS(t, t.Context(), c, wsURL(srv))
				send(t, t.Context(), conn, create)
				if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
					t.Fatalf("read: %v", err)
				}
				send(t, t.Context(), conn, create)
				got, err := readUntil(t.Context(), conn, "error")
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				if diff := cmp.Diff([]wsMsg{{websocket.MessageText, tt.want}}, got); diff != "" {
					t.Errorf("error event (-want +got):\n%s", diff)
				}
				send(t, t.Context(), conn, create)
				if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
					t.Fatalf("read after the error event: %v", err)
				}
				var conns []int
				for _, r := range srv.Requests() {
					conns = append(conns, r.Conn)
				}
				if diff := cmp.Diff([]int{1, 1, 1}, conns); diff != "" {
					t.Errorf("connections (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestWSClose(t *testing.T) {
	tests := []struct {
		name   string
		step   rt.Step
		status websocket.StatusCode // -1: not a close frame
		reason string
	}{
		{"Drop", rt.Drop(), -1, ""},
		{"End", rt.End(), websocket.StatusNormalClosure, "end of stream"},
		{"CloseWS private code", rt.CloseWS(4000, "x"), 4000, "x"},
		{"CloseWS try again later", rt.CloseWS(websocket.StatusTryAgainLater, "busy"), websocket.StatusTryAgainLater, "busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := rt.Script{rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "hel"), tt.step, rt.Completed("r1"))}
			overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
				conn := mustDialWS(t, t.Context(), c, wsURL(srv))
				send(t, t.Context(), conn, create)
				got, err := readUntil(t.Context(), conn, "response.completed")
				if err == nil {
					t.Fatal("read: got response.completed, want the connection to end first")
				}
				if diff := cmp.Diff([]string{"response.created", "response.output_text.delta"}, msgTypes(got)); diff != "" {
					t.Errorf("messages before the close (-want +got):\n%s", diff)
				}
				var ce websocket.CloseError
				if !errors.As(err, &ce) {
					ce = websocket.CloseError{Code: -1}
				}
				if diff := cmp.Diff(websocket.CloseError{Code: tt.status, Reason: tt.reason}, ce); diff != "" {
					t.Errorf("close (-want +got):\n%s\nerror: %v", diff, err)
				}
			})
		})
	}
}

func TestCloseWSPanics(t *testing.T) {
	tests := []struct {
		name   string
		code   websocket.StatusCode
		reason string
	}{
		{"abnormal closure", websocket.StatusAbnormalClosure, ""},
		{"no status", websocket.StatusNoStatusRcvd, ""},
		{"out of range", 5000, ""},
		{"reason too long", 4000, string(make([]byte, 124))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("CloseWS(%d, %d bytes) did not panic", tt.code, len(tt.reason))
				}
			}()
			rt.CloseWS(tt.code, tt.reason)
		})
	}
}

// TestWSNewStepsOverSSE pins what the WebSocket-only steps do to an SSE
// stream.
func TestWSNewStepsOverSSE(t *testing.T) {
	stream(t, rt.Stream(rt.Created("r1"), rt.Binary("data: x\n\n"), rt.CloseWS(4000, "x"), rt.Completed("r1")),
		func(t *testing.T, _ *rt.Server, resp *http.Response) {
			evs, err := readEvents(resp.Body)
			if err == nil {
				t.Error("reading past CloseWS: got clean EOF, want an error as for Drop")
			}
			want := []event{{"response.created", `{"type":"response.created","response":{"id":"r1","status":"in_progress"}}`}, {"", "x"}}
			if diff := cmp.Diff(want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
}

func TestWSPing(t *testing.T) {
	script := rt.Script{rt.Stream(rt.Comment("keep-alive"), rt.Barrier("pinged"), rt.Created("r1"), rt.Completed("r1"))}
	overWS(t, script, func(t *testing.T, srv *rt.Server, c *http.Client) {
		// Only the reading goroutine touches log: OnPingReceived runs
		// inside conn.Read.
		var log []string
		conn, _, err := websocket.Dial(t.Context(), wsURL(srv), &websocket.DialOptions{
			HTTPClient: c,
			OnPingReceived: func(_ context.Context, p []byte) bool {
				log = append(log, "ping "+string(p))
				return true
			},
		})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer conn.CloseNow()
		send(t, t.Context(), conn, create)
		// The client is not reading, so it cannot answer the ping; the
		// stream must get past it anyway.
		<-srv.Reached("pinged")
		got, err := readUntil(t.Context(), conn, "response.completed")
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		log = append(log, msgTypes(got)...)
		want := []string{"ping keep-alive", "response.created", "response.completed"}
		if diff := cmp.Diff(want, log); diff != "" {
			t.Errorf("what the client saw, in order (-want +got):\n%s", diff)
		}
		// The connection is still usable: the pong did not confuse the
		// server.
		srv.Append(rt.Reply("r2", "m2", "again"))
		send(t, t.Context(), conn, create)
		if _, err := readUntil(t.Context(), conn, "response.completed"); err != nil {
			t.Fatalf("read after ping: %v", err)
		}
	})
}

func TestWSUnexpected(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			fake := &fakeTB{TB: t}
			srv := rt.NewServer(fake, rt.Script{rt.Stream(rt.Created("r1"))})
			c := tr.client(srv)
			conn := mustDialWS(t, t.Context(), c, wsURL(srv))

			// Messages other than response.create are reported, ignored
			// and consume nothing.
			send(t, t.Context(), conn, `{"type":"response.cancel"}`)
			if err := conn.Write(t.Context(), websocket.MessageBinary, []byte(create)); err != nil {
				t.Fatalf("write: %v", err)
			}
			send(t, t.Context(), conn, create)
			if _, err := readUntil(t.Context(), conn, "response.created"); err != nil {
				t.Fatalf("read: %v", err)
			}

			// Beyond the script: reported, recorded, and the connection
			// is closed with StatusInternalError.
			send(t, t.Context(), conn, create)
			_, err := readUntil(t.Context(), conn, "none")
			if got := websocket.CloseStatus(err); got != websocket.StatusInternalError {
				t.Errorf("close status = %v (%v), want StatusInternalError", got, err)
			}
			want := []string{
				`responsestest: unexpected MessageText message on WebSocket connection 1: "{\"type\":\"response.cancel\"}"`,
				`responsestest: unexpected MessageBinary message on WebSocket connection 1: "{\"type\":\"response.create\",\"model\":\"gpt-5\"}"`,
				"responsestest: unexpected request #2 (script has 1 attempts)",
			}
			if diff := cmp.Diff(want, fake.errors()); diff != "" {
				t.Errorf("Errorf calls (-want +got):\n%s", diff)
			}
			var attempts []int
			for _, r := range srv.Requests() {
				attempts = append(attempts, r.Attempt)
			}
			if diff := cmp.Diff([]int{0, 1}, attempts); diff != "" {
				t.Errorf("recorded attempts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWSBadHandshake(t *testing.T) {
	fake := &fakeTB{TB: t}
	srv := rt.NewServer(fake, nil)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/responses", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Upgrade", "websocket") // no Connection, key or version
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 4 {
		t.Errorf("status = %d, want 4xx", resp.StatusCode)
	}
	if n := len(fake.errors()); n != 1 {
		t.Errorf("got %d Errorf calls (%q), want 1", n, fake.errors())
	}
	hs := srv.Handshakes()
	if len(hs) != 1 || hs[0].Conn != 0 || hs[0].Attempt != -1 {
		t.Errorf("Handshakes = %+v, want one refused handshake with Conn 0, Attempt -1", hs)
	}
}
