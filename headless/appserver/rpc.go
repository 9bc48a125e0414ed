package appserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// message is any JSON-RPC message as read: a request (ID and Method), a
// notification (Method) or a response to a request of ours (ID and
// Result or Error).
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// response is what a request of ours got.
type response struct {
	result json.RawMessage
	err    *rpcError
}

// client is one connection: its messages, the requests it has in flight
// to it (approvals), and the threads it is subscribed to.
type client struct {
	s    *Server
	conn Conn
	ctx  context.Context
	log  *slog.Logger

	mu          sync.Mutex
	initialized bool
	name        string
	next        int
	waiting     map[string]chan response
	subscribed  map[string]*thread
	closed      bool
	optOut      map[string]bool
}

// send writes v as one message. A client that went away loses it.
func (c *client) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.log.Error("app-server: encode", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), writeTimeout)
	defer cancel()
	if err := c.conn.Write(ctx, b); err != nil {
		c.log.Debug("app-server: write", "err", err)
	}
}

// writeTimeout bounds one write to a client that stopped reading.
const writeTimeout = 30 * time.Second

// notification is a server notification.
type notification struct {
	Method      string `json:"method"`
	Params      any    `json:"params,omitempty"`
	EmittedAtMs int64  `json:"emittedAtMs,omitempty"`
}

// notify sends a notification, unless the client opted out of method.
func (c *client) notify(method string, params any) {
	c.mu.Lock()
	out := c.optOut[method]
	c.mu.Unlock()
	if out {
		return
	}
	c.send(notification{Method: method, Params: params, EmittedAtMs: c.s.now().UnixMilli()})
}

// reply answers the request id.
func (c *client) reply(id json.RawMessage, result any, err error) {
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{Code: codeInternal, Message: err.Error()}
		}
		c.send(struct {
			ID    json.RawMessage `json:"id"`
			Error *rpcError       `json:"error"`
		}{id, re})
		return
	}
	if result == nil {
		result = struct{}{}
	}
	c.send(struct {
		ID     json.RawMessage `json:"id"`
		Result any             `json:"result"`
	}{id, result})
}

// request sends a request to the client and waits for its answer, ctx's
// end or the client's going away.
func (c *client) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, io.EOF
	}
	c.next++
	id := "agent-" + strconv.Itoa(c.next)
	ch := make(chan response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	c.send(struct {
		ID     string `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params})
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, io.EOF
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// serve reads the client's messages until it goes away.
func (c *client) serve() error {
	defer c.gone()
	for {
		b, err := c.conn.Read(c.ctx)
		if err != nil {
			if errors.Is(err, io.EOF) || c.ctx.Err() != nil {
				return nil
			}
			return err
		}
		c.handle(b)
	}
}

// handle takes one message. A malformed one is answered with an error and
// the connection reads on.
func (c *client) handle(b []byte) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		c.reply(json.RawMessage("null"), nil, &rpcError{Code: codeParse, Message: "parse error: " + err.Error()})
		return
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	switch {
	case m.Method == "" && hasID:
		c.mu.Lock()
		ch := c.waiting[idKey(m.ID)]
		c.mu.Unlock()
		if ch != nil {
			ch <- response{result: m.Result, err: m.Error}
		}
	case m.Method == "":
		c.reply(json.RawMessage("null"), nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: neither a method nor a response"})
	case !hasID:
		c.notification(m.Method, m.Params)
	default:
		c.call(m)
	}
}

// idKey is a request id as the key of waiting: a string's text, else the
// JSON.
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// notification takes a client notification.
func (c *client) notification(method string, _ json.RawMessage) {
	switch method {
	case "initialized":
	default:
		c.log.Debug("app-server: notification ignored", "method", method)
	}
}

// call answers a request.
func (c *client) call(m message) {
	h, ok := handlers[m.Method]
	if !ok {
		c.reply(m.ID, nil, &rpcError{Code: codeNoMethod, Message: "agent app-server does not implement " + m.Method})
		return
	}
	c.mu.Lock()
	initialized := c.initialized
	c.mu.Unlock()
	if !initialized && m.Method != "initialize" {
		c.reply(m.ID, nil, &rpcError{Code: codeInvalidRequest, Message: "not initialized: send initialize first (" + m.Method + ")"})
		return
	}
	params := m.Params
	if len(params) == 0 || bytes.Equal(params, []byte("null")) {
		params = json.RawMessage("{}")
	}
	result, after, err := h(c, params)
	c.reply(m.ID, result, err)
	if err == nil && after != nil {
		after()
	}
}

// gone ends what the client held: its waiting requests, and its
// subscriptions (a thread no one is subscribed to interrupts its turn and
// closes).
func (c *client) gone() {
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
	subs := c.subscribed
	c.subscribed = map[string]*thread{}
	c.mu.Unlock()
	for _, th := range subs {
		th.unsubscribe(c)
	}
}
