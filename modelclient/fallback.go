package modelclient

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
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
// the client's wire has a WebSocket form (the Responses API), the
// provider speaks it (or the user forced it) and the session has not
// fallen back.
func (c *Client) WebSocketActive() bool {
	p := c.opts.Provider
	if !c.wire.WebSocket || c.disableWS.Load() || p.Transport == provider.TransportHTTPS {
		return false
	}
	return p.SupportsWebSockets || p.Transport == provider.TransportWebSocket
}

// fallBackOn is the one decision to leave WebSocket for HTTPS, for the
// failure err of an attempt over WebSocket: at once when the handshake
// says WebSocket is not served here (426, or an answer from something
// that does not upgrade); after the stream budget was spent on WebSocket
// (spent) for any other retryable failure but a failed credential
// recovery or one of a class neutral to the transport (the retry policy
// table's [provider.ClassBehaviour].TransportNeutral: a rate limit). It reports
// whether the session switched now, telling notify.
func (c *Client) fallBackOn(ctx context.Context, err error, spent bool, notify func(Fallback)) bool {
	if !c.WebSocketActive() {
		return false
	}
	f := Classify(err)
	var re *recoveryError
	switch {
	case f.WebSocketUnavailable():
	case spent && f.Retryable() && !f.Behaviour().TransportNeutral && !errors.As(err, &re):
	default:
		return false
	}
	reason := f.Reason()
	if !c.FallBack(ctx, reason) {
		return false
	}
	if notify != nil {
		notify(Fallback{Reason: reason})
	}
	return true
}

// FallBack switches the whole session to HTTPS, once and for good (later
// turns never try WebSocket again). It reports whether this call made the
// switch. The cached connection and its previous-response baseline go.
func (c *Client) FallBack(ctx context.Context, reason string) bool {
	if !c.WebSocketActive() || !c.disableWS.CompareAndSwap(false, true) {
		return false
	}
	_ = c.ws.Close()
	c.cache.set(nil)
	c.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "fallback",
		slog.String("from", "websocket"), slog.String("to", "https"),
		slog.String("reason", reason), slog.String("provider", c.opts.Provider.ID))
	return true
}

// wsChain is what the last completed WebSocket request established, for
// previous_response_id chaining: the client caches it between turns, a
// [Turn] keeps its own copy. The connection itself is the
// [ws.Transport]'s; it sends the incremental form only when the response
// chained on was the last one on its current connection.
type wsChain struct {
	mu   sync.Mutex
	last *wsLast
}

// wsLast describes the last completed request on WebSocket.
type wsLast struct {
	props      []byte           // the request without its input, encoded
	input      []transport.Item // the full input it carried
	added      []transport.Item // the items the response produced
	responseID string
}

func (c *wsChain) set(l *wsLast) {
	c.mu.Lock()
	c.last = l
	c.mu.Unlock()
}

func (c *wsChain) get() *wsLast {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// transportFor returns the transport of the next attempt and its request
// for p, written by the client's wire (h, the client's headers, with the
// wire's): over WebSocket the full body plus, when p extends the last
// completed request exactly, its incremental form (previous_response_id
// plus only the new items); over HTTPS the body alone (body caches it
// across attempts).
func (t *Turn) transportFor(p *Prompt, h http.Header, body *[][]byte) (transport.Transport, *transport.Request, func(transport.Stream) transport.Stream, error) {
	c := t.c
	h = c.wire.Encoder.Header(h)
	if !c.WebSocketActive() {
		if *body == nil {
			b, err := c.encodeParts(p, t.opts.Settings, "")
			if err != nil {
				return nil, nil, nil, err
			}
			*body = b
		}
		return c.transport, &transport.Request{URL: c.url, Header: h, Parts: *body}, nil, nil
	}
	props, err := c.encode(&Prompt{Instructions: p.Instructions, Tools: p.Tools,
		ParallelToolCalls: p.ParallelToolCalls, OutputSchema: p.OutputSchema}, t.opts.Settings, "")
	if err != nil {
		return nil, nil, nil, err
	}
	full, err := c.encodeParts(p, t.opts.Settings, "")
	if err != nil {
		return nil, nil, nil, err
	}
	req := &transport.Request{URL: c.url, Header: h, Parts: full}
	if l := t.chain; l != nil && l.responseID != "" && slices.Equal(l.props, props) {
		base := append(slices.Clone(l.input), l.added...)
		if extends(p.Input, base) {
			inc := *p
			inc.Input = p.Input[len(base):]
			if req.Incremental, err = c.encode(&inc, t.opts.Settings, l.responseID); err != nil {
				return nil, nil, nil, err
			}
			req.PreviousResponseID = l.responseID
		}
	}
	input := slices.Clone(p.Input)
	wrap := func(st transport.Stream) transport.Stream {
		return &wsStream{Stream: st, turn: t, props: props, input: input}
	}
	return c.ws, req, wrap, nil
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
// it.
type wsStream struct {
	transport.Stream
	turn      *Turn
	props     []byte
	input     []transport.Item
	added     []transport.Item
	completed string
	released  bool
}

func (s *wsStream) Events() iter.Seq[transport.Event] {
	return func(yield func(transport.Event) bool) {
		for ev := range s.Stream.Events() {
			switch ev := ev.(type) {
			case transport.OutputItemDone:
				s.added = append(s.added, ev.Item)
			case transport.Completed:
				s.completed = ev.ResponseID
			}
			if !yield(ev) {
				return
			}
		}
	}
}

func (s *wsStream) Close() error {
	err := s.Stream.Close()
	if !s.released {
		s.released = true
		var l *wsLast
		if s.completed != "" {
			l = &wsLast{props: s.props, input: s.input, added: s.added, responseID: s.completed}
		}
		s.turn.chain = l
		s.turn.c.cache.set(l) // the next turn starts from it

	}
	return err
}
