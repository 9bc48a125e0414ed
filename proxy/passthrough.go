package proxy

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"

	"github.com/agentcli/agent/transport"

	"github.com/agentcli/agent/modelclient"
)

// resultKey carries the request's *result to the reverse proxy's hooks.
type resultKey struct{}

// newReverseProxy returns the relay for paths that are not retried and for
// WebSocket upgrades. It flushes every write and handles Upgrade by
// copying the hijacked connection both ways.
func (p *Proxy) newReverseProxy() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = p.upstreamURL(pr.In.URL)
			pr.Out.Host = ""
			if !apiPath(route(pr.In.URL.Path)) {
				return
			}
			for k, v := range p.opts.Header {
				pr.Out.Header[k] = append([]string(nil), v...)
			}
		},
		Transport:     p.opts.Transport,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ModifyResponse: func(resp *http.Response) error {
			if res, ok := resp.Request.Context().Value(resultKey{}).(*result); ok {
				res.status = resp.StatusCode
			}
			resp.Header.Set(HeaderProxy, "1")
			resp.Header.Set(HeaderAttempts, "1")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			res, _ := r.Context().Value(resultKey{}).(*result)
			if res == nil {
				res = &result{}
			}
			switch {
			case p.clientGone(r):
				res.gone, res.streamErr = goneClosed, err
				return
			case res.status != 0:
				// The response had started (a body copy or an upgraded
				// connection broke); nothing more can be said to the client.
				res.streamErr = err
				return
			}
			res.failure = modelclient.ClassifyRoundTrip(err)
			res.status = http.StatusBadGateway
			writeError(w, res, "server_error", "upstream_unavailable",
				"agent proxy: upstream unavailable: "+res.failure.Reason())
		},
	}
}

// passthrough relays r once, without buffering or retries. A body copy
// that breaks makes httputil.ReverseProxy abort the handler; the abort
// is recorded (a client gone, or a broken stream) and passed on.
func (p *Proxy) passthrough(w http.ResponseWriter, r *http.Request, res *result) {
	res.attempts = 1
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler && res.streamErr == nil {
				p.copyAborted(w, r, res)
			}
			panic(v)
		}
	}()
	ctx := context.WithValue(r.Context(), resultKey{}, res)
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// copyAborted records why httputil.ReverseProxy aborted r's body copy: a
// write to the client that failed (it hung up or stalled), a client gone
// otherwise, or the upstream's body breaking.
func (p *Proxy) copyAborted(w http.ResponseWriter, r *http.Request, res *result) {
	if dw, ok := w.(*deadlineWriter); ok && dw.err != nil {
		p.lostClient(res, dw.err)
		return
	}
	res.streamErr = errCopyAborted
	if p.clientGone(r) {
		res.gone = goneClosed
	}
}

// errCopyAborted: httputil.ReverseProxy aborted a pass-through whose body
// copy broke.
var errCopyAborted = &transport.ReadError{Err: errors.New("proxy: relaying the body broke")}

// serveWebSocket refuses an upgrade (426, so Responses clients fall back
// to HTTP) or, in passthrough mode, relays the connection.
func (p *Proxy) serveWebSocket(w http.ResponseWriter, r *http.Request, res *result) {
	if p.opts.WebSocket == WebSocketPassthrough {
		p.passthrough(w, r, res)
		return
	}
	res.status = http.StatusUpgradeRequired
	res.failure = modelclient.ClassifyResponse(res.status, nil, nil, modelclient.Keywords{})
	writeError(w, res, "invalid_request_error", "websocket_not_proxied",
		"agent proxy: WebSocket is not proxied; use HTTP (server-sent events), or start the proxy with --ws "+
			WebSocketPassthrough)
}
