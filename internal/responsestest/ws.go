package responsestest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// isUpgrade reports whether r asks to switch to WebSocket.
func isUpgrade(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	for _, v := range r.Header.Values("Upgrade") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "websocket") {
				return true
			}
		}
	}
	return false
}

// serveHandshake answers a WebSocket handshake. If the next attempt is not
// a stream it is consumed and answered as plain HTTP, refusing the
// upgrade; otherwise the upgrade is accepted and the connection served
// until it ends, consuming one attempt per response.create message.
func (s *Server) serveHandshake(w http.ResponseWriter, r *http.Request) {
	a, consumed, id, idx := s.handshake(r)
	if consumed {
		s.serveAttempt(w, r, a)
		return
	}
	hw := &hijackWriter{ResponseWriter: w}
	c, err := websocket.Accept(hw, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // a test server; any Origin will do
	})
	if err != nil { // Accept has answered with 4xx
		s.refused(idx)
		s.unexpected(fmt.Sprintf("responsestest: bad WebSocket handshake for %s: %v", r.URL.Path, err))
		return
	}
	c.SetReadLimit(-1) // response.create carries the whole conversation
	wc := &wsConn{
		s:   s,
		c:   c,
		raw: hw.conn,
		req: Request{
			Method: "WS",
			Path:   r.URL.Path,
			Query:  r.URL.Query(),
			Header: r.Header.Clone(),
			Conn:   id,
		},
	}
	if !s.track(wc.raw) {
		_ = c.CloseNow()
		return
	}
	defer s.untrack(wc.raw)
	wc.serve()
}

// handshake records r in Handshakes and decides its fate under one lock,
// so concurrent handshakes and POSTs consume attempts exactly once. If the
// next attempt is not a stream, it is consumed (and r also recorded in
// Requests) and returned with consumed set. Otherwise r gets the next
// connection number id. idx is r's index in s.handshakes.
func (s *Server) handshake(r *http.Request) (a Attempt, consumed bool, id, idx int) {
	req := Request{
		Method:  r.Method,
		Path:    r.URL.Path,
		Query:   r.URL.Query(),
		Header:  r.Header.Clone(),
		Attempt: -1,
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx = len(s.handshakes)
	if s.next < len(s.script) && s.script[s.next].kind != attemptStream {
		a = s.script[s.next]
		req.Attempt = s.next
		s.next++
		s.requests = append(s.requests, req.clone())
		s.handshakes = append(s.handshakes, req)
		return a, true, 0, idx
	}
	s.conns++
	req.Conn = s.conns
	s.handshakes = append(s.handshakes, req)
	return Attempt{}, false, s.conns, idx
}

// refused marks handshake idx as not accepted after all.
func (s *Server) refused(idx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handshakes[idx].Conn = 0
}

// track registers a hijacked connection for Close to abort. It reports
// false if the server is closed already.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.live[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, c)
}

// hijackWriter remembers the connection websocket.Accept hijacks, so that
// pings can be written to it directly and Close can abort it.
type hijackWriter struct {
	http.ResponseWriter
	conn net.Conn
}

// Hijack implements http.Hijacker.
func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	w.conn = c
	return c, brw, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wsConn is one accepted WebSocket connection.
type wsConn struct {
	s   *Server
	c   *websocket.Conn
	raw net.Conn // what c runs on, for pings and for Close to abort
	req Request  // template for recorded messages: handshake data, Conn
}

// wsMessage is one data message read from the client.
type wsMessage struct {
	typ  websocket.MessageType
	data []byte
}

// serve runs the connection until a step ends it, the client goes away
// or the server closes. A reader goroutine keeps reading (so pongs and
// close frames are handled while steps run) and hands data messages over
// one at a time; serve joins it before returning.
func (wc *wsConn) serve() {
	// ctx is done once the client went away or the connection is torn
	// down; it bounds every read and write.
	ctx, cancel := context.WithCancel(context.Background())
	msgs := make(chan wsMessage)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		wc.read(ctx, cancel, msgs)
	}()
	defer func() {
		_ = wc.c.CloseNow() // no-op if a step closed it already
		cancel()
		<-readDone
	}()
	for {
		select {
		case m := <-msgs:
			if !wc.handle(ctx, m) {
				return
			}
		case <-ctx.Done():
			return
		case <-wc.s.done:
			return
		}
	}
}

// read passes data messages to msgs until reading fails, then cancels
// the connection's context through gone.
func (wc *wsConn) read(ctx context.Context, gone context.CancelFunc, msgs chan<- wsMessage) {
	defer gone()
	for {
		typ, data, err := wc.c.Read(ctx)
		if err != nil {
			return
		}
		select {
		case msgs <- wsMessage{typ, data}:
		case <-ctx.Done():
			return
		}
	}
}

// handle answers one client message and reports whether the connection
// stays open.
func (wc *wsConn) handle(ctx context.Context, m wsMessage) bool {
	s := wc.s
	if m.typ != websocket.MessageText || messageType(m.data) != "response.create" {
		s.unexpected(fmt.Sprintf("responsestest: unexpected %v message on WebSocket connection %d: %.200q",
			m.typ, wc.req.Conn, m.data))
		return true
	}
	req := wc.req.clone()
	req.Body = m.data // JSON is decoded on the way out, by Requests
	a, i, total, ok := s.take(req)
	if !ok {
		s.unexpected(fmt.Sprintf("responsestest: unexpected request #%d (script has %d attempts)", i+1, total))
		_ = wc.c.Close(websocket.StatusInternalError, "responsestest: unexpected request")
		return false
	}
	switch a.kind {
	case attemptStatus:
		return wc.c.Write(ctx, websocket.MessageText, wsErrorEvent(a)) == nil
	case attemptHang:
		// Like an HTTP Hang: say nothing until Release or Close, then drop.
		s.wait(ctx)
		return false
	}
	for _, st := range a.steps {
		if !wc.runStep(ctx, st) {
			return false
		}
	}
	return true
}

// runStep performs st on the connection and reports whether it stays
// open. A false return without a close frame means the caller drops the
// connection.
func (wc *wsConn) runStep(ctx context.Context, st Step) bool {
	switch st.kind {
	case stepEvent, stepRaw:
		return wc.c.Write(ctx, websocket.MessageText, []byte(st.data)) == nil
	case stepBinary:
		return wc.c.Write(ctx, websocket.MessageBinary, []byte(st.data)) == nil
	case stepComment:
		return wc.ping(st.data) == nil
	case stepDrop:
		return false
	case stepEnd:
		_ = wc.c.Close(websocket.StatusNormalClosure, "end of stream")
		return false
	case stepCloseWS:
		_ = wc.c.Close(st.code, st.data)
		return false
	case stepStall:
		return wc.s.wait(ctx) == waitReleased
	case stepBarrier:
		wc.s.reach(st.data)
	case stepQuorum:
		select {
		case <-wc.s.meet(st.data, int(st.d)):
		case <-ctx.Done():
			return false
		case <-wc.s.done:
			return false
		}
	case stepSleep:
		t := time.NewTimer(st.d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		case <-wc.s.done:
			return false
		}
	}
	return true
}

// ping writes one ping control frame carrying payload (cut to the 125
// bytes a control frame allows) straight to the connection and returns
// without waiting for the pong; websocket.Conn.Ping would wait, and a
// client that does not read would then block the stream. Writing beside
// the websocket.Conn is safe: it flushes every frame it writes, only this
// goroutine writes data frames, and each side's frame is a single Write
// on the net.Conn, which does not interleave with another Write.
func (wc *wsConn) ping(payload string) error {
	const maxControlPayload = 125
	if len(payload) > maxControlPayload {
		payload = payload[:maxControlPayload]
	}
	// A server frame is unmasked: FIN and opcode 0x9, then the length.
	frame := append([]byte{0x89, byte(len(payload))}, payload...)
	_, err := wc.raw.Write(frame)
	return err
}

// messageType returns the "type" of a JSON object, or "" if b is not one.
func messageType(b []byte) string {
	var m struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	return m.Type
}

// wsErrorEvent renders a non-stream attempt as the error event the
// Responses WebSocket sends in place of an HTTP error:
// {"type":"error","status":N,"error":{...},"headers":{...}}. The error
// object is the "error" member of the attempt's body when the body is a
// JSON object with one, otherwise {"type":null,"code":null,"message":...}
// with the body (or the status text) as message. Headers are the
// attempt's, by canonical name, repeated values joined with ", ".
func wsErrorEvent(a Attempt) []byte {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	var errObj json.RawMessage
	if json.Unmarshal([]byte(a.body), &body) == nil && strings.HasPrefix(string(body.Error), "{") {
		errObj = body.Error
	} else {
		msg := a.body
		if msg == "" {
			msg = http.StatusText(a.status)
		}
		errObj = json.RawMessage(errorObject(msg))
	}
	h := make(http.Header)
	for i := 0; i+1 < len(a.header); i += 2 {
		h.Add(a.header[i], a.header[i+1])
	}
	headers := make(map[string]string, len(h))
	for k, v := range h {
		headers[k] = strings.Join(v, ", ")
	}
	return []byte(mustJSON(struct {
		Type    string            `json:"type"`
		Status  int               `json:"status"`
		Error   json.RawMessage   `json:"error"`
		Headers map[string]string `json:"headers"`
	}{"error", a.status, errObj, headers}))
}

// errorObject is the error member for a body that has none.
func errorObject(message string) string {
	return mustJSON(struct {
		Type    *string `json:"type"`
		Code    *string `json:"code"`
		Message string  `json:"message"`
	}{Message: message})
}
