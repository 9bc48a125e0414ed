package modelclient

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/ws"
)

// Fallback reports the session-wide switch from WebSocket to HTTPS.
type Fallback struct {
	// Reason is why, in words.
	Reason string
}

// Message is the warning text shown to the user.
func (f Fallback) Message() string {
	return "Falling back from WebSockets to HTTPS transport: " + f.Reason
}

// WebSocketActive reports whether requests currently go over WebSocket:
// the provider speaks it (or the user forced it) and the session has not
// fallen back.
func (c *Client) WebSocketActive() bool {
	p := c.opts.Provider
	if c.disableWS.Load() || p.Transport == provider.TransportHTTPS {
		return false
	}
	return p.SupportsWebSockets || p.Transport == provider.TransportWebSocket
}

// FallBack switches the whole session to HTTPS, once and for good (later
// turns never try WebSocket again). It reports whether this call made the
// switch. The cached connection and its previous-response baseline go.
func (c *Client) FallBack(ctx context.Context, reason string) bool {
	if !c.WebSocketActive() || !c.disableWS.CompareAndSwap(false, true) {
		return false
	}
	c.ws.reset()
	c.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "fallback",
		slog.String("from", "websocket"), slog.String("to", "https"),
		slog.String("reason", reason), slog.String("provider", c.opts.Provider.ID))
	return true
}

// wsState is the cached WebSocket connection and what the last request on
// it established, for previous_response_id chaining.
type wsState struct {
	mu   sync.Mutex // one request at a time per connection
	conn *ws.Conn
	last *wsLast
}

// wsLast describes the last completed request on the current connection.
type wsLast struct {
	props      []byte           // the request without its input, encoded
	input      []transport.Item // the full input it carried
	added      []transport.Item // the items the response produced
	responseID string
}

func (s *wsState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		_ = s.conn.Close()
	}
	s.conn, s.last = nil, nil
}

// openWS sends p over the cached connection, dialing a new one when there
// is none or it broke. The request is incremental (previous_response_id
// plus only the new items) when it extends the last one exactly; after any
// reconnect it is sent in full.
func (c *Client) openWS(ctx context.Context, p *Prompt, h http.Header) (transport.Stream, error) {
	s := &c.ws
	s.mu.Lock()
	if s.conn != nil && s.conn.Broken() {
		_ = s.conn.Close()
		s.conn, s.last = nil, nil
	}
	if s.conn == nil {
		conn, err := ws.Dial(ctx, c.url, h, &ws.Options{
			HTTPClient:      c.opts.HTTPClient,
			ConnectTimeout:  c.opts.Provider.WebSocketConnectTimeout,
			IdleTimeout:     c.opts.Provider.StreamIdleTimeout,
			ProgressTimeout: c.opts.Provider.StreamProgressTimeout,
		})
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.conn = conn
	}
	props, err := c.encode(&Prompt{Instructions: p.Instructions, Tools: p.Tools,
		ParallelToolCalls: p.ParallelToolCalls, OutputSchema: p.OutputSchema}, "")
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	req := *p
	prev := ""
	if l := s.last; l != nil && l.responseID != "" && slices.Equal(l.props, props) {
		base := append(slices.Clone(l.input), l.added...)
		if extends(p.Input, base) {
			req.Input = p.Input[len(base):]
			prev = l.responseID
		}
	}
	body, err := c.encode(&req, prev)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	st, err := s.conn.Open(ctx, body)
	if err != nil {
		s.last = nil
		s.mu.Unlock()
		return nil, err
	}
	return &wsStream{Stream: st, state: s, props: props, input: slices.Clone(p.Input)}, nil
}

// extends reports whether input starts with base, item by item.
func extends(input, base []transport.Item) bool {
	if len(input) < len(base) {
		return false
	}
	for i, it := range base {
		if string(it.Raw) != string(input[i].Raw) {
			return false
		}
	}
	return true
}

// wsStream records what a response adds, so the next request can chain on
// it, and releases the connection when closed.
type wsStream struct {
	transport.Stream
	state     *wsState
	props     []byte
	input     []transport.Item
	added     []transport.Item
	completed string
	released  bool
}

func (s *wsStream) Next() bool {
	if !s.Stream.Next() {
		return false
	}
	switch ev := s.Stream.Event().(type) {
	case transport.OutputItemDone:
		s.added = append(s.added, ev.Item)
	case transport.Completed:
		s.completed = ev.ResponseID
	}
	return true
}

func (s *wsStream) Close() error {
	err := s.Stream.Close()
	if !s.released {
		s.released = true
		if s.completed != "" {
			s.state.last = &wsLast{props: s.props, input: s.input, added: s.added, responseID: s.completed}
		} else {
			s.state.last = nil
		}
		s.state.mu.Unlock()
	}
	return err
}

// wsUnavailable reports whether a handshake answer says WebSocket is not
// served here, so asking again cannot help: 426, or a plain HTTP answer
// from something that does not upgrade (404, 405, 400, 200 ...). 401 goes
// to auth recovery; 408, 429 and 5xx are retried like any request.
func wsUnavailable(err error) bool {
	var he *transport.HandshakeError
	var st *transport.HTTPError
	if !errors.As(err, &he) || !errors.As(he.Err, &st) {
		return false
	}
	switch s := st.StatusCode; {
	case s == http.StatusUnauthorized, s == http.StatusRequestTimeout, s == http.StatusTooManyRequests, s >= 500:
		return false
	}
	return true
}
