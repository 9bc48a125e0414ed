package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/transport"
)

// Defaults of [Options].
const (
	DefaultMaxRetries           = 5
	DefaultMaxConcurrentRetries = 3
	DefaultMaxBodyBytes         = 32 << 20
	DefaultStatsEvery           = 100
	DefaultShutdownTimeout      = 5 * time.Second
	DefaultWriteTimeout         = 60 * time.Second
)

// WebSocket modes of [Options].WebSocket.
const (
	// WebSocketReject answers upgrades 426 Upgrade Required, which makes
	// Responses clients fall back to HTTP (SSE), where retries happen.
	WebSocketReject = "reject"
	// WebSocketPassthrough relays the upgraded connection both ways,
	// without retries.
	WebSocketPassthrough = "passthrough"
)

// Response headers the proxy adds to every answer.
const (
	// HeaderProxy is always "1": the client is talking to the proxy.
	HeaderProxy = "X-Agent-Proxy"
	// HeaderAttempts is the number of upstream attempts the answer took.
	// Clients that see it (agent does) leave pre-stream retries to the
	// proxy instead of multiplying them.
	HeaderAttempts = transport.HeaderProxyAttempts
)

// StatsPath answers GET with [Stats] as JSON.
const StatsPath = "/_proxy/stats"

// Options configures a [Proxy]. Only Upstream is required.
type Options struct {
	// Upstream is the API root requests go to, as a client's base URL
	// would be, e.g. https://api.openai.com/v1. A request for
	// /v1/<rest> (or /<rest>) goes to Upstream + "/<rest>".
	Upstream *url.URL
	// Header is set on every upstream request for one of the provider's
	// API paths (responses, chat/completions, completions, embeddings,
	// models, messages), replacing the client's values of the same names:
	// the provider's Authorization and http_headers. Other paths (files,
	// organisation, ...) get the client's headers only. Default: none.
	Header http.Header
	// Query is set on every upstream URL (the provider's query_params).
	Query url.Values
	// Retry is the policy of each retry class ([provider.Classes]); a
	// missing class uses [provider.DefaultRetry]'s.
	Retry map[string]provider.ClassPolicy
	// MaxRetries caps the re-sends of one request (a class's own
	// max_retries may cap it lower). Zero means [DefaultMaxRetries]; a
	// negative value disables retries.
	MaxRetries int
	// MaxConcurrentRetries caps the re-sends in flight at once across all
	// requests; others wait their turn. Zero means
	// [DefaultMaxConcurrentRetries].
	MaxConcurrentRetries int
	// Gate, when set, is the retry gate to share (agent passes the
	// machine-wide one of the provider); it then bounds the re-sends
	// instead of MaxConcurrentRetries. Nil: a gate of the proxy's own.
	Gate *gate.Gate
	// MaxBodyBytes caps a buffered request body of a retried path; a
	// larger one is answered 413. Zero means [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// Keywords are the body phrases the classifier looks for. A nil list
	// means the one of [modelclient.DefaultKeywords]; an empty non-nil
	// list means none.
	Keywords modelclient.Keywords
	// WebSocket is [WebSocketReject] (the default when empty) or
	// [WebSocketPassthrough].
	WebSocket string
	// Transport sends upstream requests. Default: the transport of
	// [modelclient.NewHTTPClient], whose pool keeps as many idle
	// connections as were busy at once.
	Transport http.RoundTripper
	// Sleep waits between attempts. Default: [retry.Sleep].
	Sleep retry.Sleeper
	// Rand draws jitter in [0,1). Default: math/rand/v2.Float64.
	Rand func() float64
	// Now reads the clock a Retry-After date is measured against; it must
	// agree with Sleep. Default: time.Now.
	Now func() time.Time
	// Logger gets one line per request (OK or FAILED), one per retry
	// (RETRY) and a STATS line every StatsEvery requests. Default: none.
	Logger *slog.Logger
	// StatsEvery is how many requests pass between STATS lines. Zero
	// means [DefaultStatsEvery]; negative disables them.
	StatsEvery int
	// ShutdownTimeout is how long [Proxy.Serve] lets running requests
	// finish after its ctx ends before cutting them off. Zero means
	// [DefaultShutdownTimeout].
	ShutdownTimeout time.Duration
	// AllowRemote accepts requests whatever their Host (agent proxy
	// --allow-remote). Otherwise Host must be a loopback name with the
	// port the request came in on, or the request is answered 421: a web
	// page that rebinds its own name to 127.0.0.1 cannot use the proxy.
	// Requests with an Origin header are refused (403) either way.
	AllowRemote bool
	// UpstreamWire is the wire_api the upstream speaks. "" or
	// "responses": every request is relayed as it is. "chat" or
	// "anthropic": a streamed POST /responses is bridged (translated to
	// the upstream's wire, its stream translated back to the Responses
	// API's), so a Responses client (Codex) can use a Chat-only or
	// Anthropic upstream; requests for the upstream's own paths are still
	// relayed as they are.
	UpstreamWire string
	// OutputLimit is a model's output limit in tokens (the catalogue's
	// limit.output), which a bridged request to an upstream that must
	// name one (Anthropic's max_tokens) asks for; nil, or 0 for a model:
	// the wire's default.
	OutputLimit func(model string) int64
	// WriteTimeout bounds each write to a client: one that stops reading
	// for that long is cut off (counted in [Stats].ClientGone) and its
	// upstream request closed, so it cannot hold a stream for ever. Zero
	// means [DefaultWriteTimeout].
	WriteTimeout time.Duration
}

// Proxy is the retrying reverse proxy. It is an http.Handler, safe for
// concurrent use. Make one with [New].
type Proxy struct {
	opts   Options
	bridge *bridge // nil: the upstream speaks the Responses API
	gate   *gate.Gate
	stats  *counters
	rp     *httputil.ReverseProxy
	seq    atomic.Int64

	// stopping ends when Serve begins to shut down: requests waiting to
	// retry (or for the gate) stop waiting and are answered 503.
	stopping context.Context
	stop     context.CancelFunc
	// cut is set when Serve cuts off the requests still running after
	// ShutdownTimeout: their broken writes are the proxy's doing, not a
	// client that left.
	cut atomic.Bool

	mu       sync.Mutex
	closing  bool
	handlers sync.WaitGroup
}

// New returns a proxy for opts with the defaults of [Options] applied; it
// does not modify opts. It fails if Upstream is not an absolute http or
// https URL or WebSocket is not a known mode.
func New(opts Options) (*Proxy, error) {
	if u := opts.Upstream; u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("proxy: upstream must be an absolute http or https URL")
	}
	switch opts.WebSocket {
	case "":
		opts.WebSocket = WebSocketReject
	case WebSocketReject, WebSocketPassthrough:
	default:
		return nil, fmt.Errorf("proxy: unknown websocket mode %q (want %s or %s)", opts.WebSocket, WebSocketReject, WebSocketPassthrough)
	}
	u := *opts.Upstream
	opts.Upstream = &u
	opts.Header = opts.Header.Clone()
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	opts.MaxRetries = max(opts.MaxRetries, 0)
	if opts.MaxConcurrentRetries <= 0 {
		opts.MaxConcurrentRetries = DefaultMaxConcurrentRetries
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	def := modelclient.DefaultKeywords()
	if opts.Keywords.NonRetryable == nil {
		opts.Keywords.NonRetryable = def.NonRetryable
	}
	if opts.Keywords.Retryable == nil {
		opts.Keywords.Retryable = def.Retryable
	}
	if opts.Transport == nil {
		hc, err := modelclient.NewHTTPClient("")
		if err != nil {
			return nil, err
		}
		opts.Transport = hc.Transport
	}
	if opts.Sleep == nil {
		opts.Sleep = retry.Sleep
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StatsEvery == 0 {
		opts.StatsEvery = DefaultStatsEvery
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	br, err := newBridge(opts.UpstreamWire, opts.OutputLimit)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	g := opts.Gate
	if g == nil {
		g = gate.New(opts.MaxConcurrentRetries)
	}
	p := &Proxy{opts: opts, bridge: br, gate: g, stats: newCounters()}
	p.stopping, p.stop = context.WithCancel(context.Background())
	p.rp = p.newReverseProxy()
	return p, nil
}

// ServeHTTP routes one request: GET [StatsPath], a WebSocket upgrade, a
// retried POST, or a pass-through. When an upstream body breaks after the
// answer was committed, ServeHTTP panics with http.ErrAbortHandler (as
// httputil.ReverseProxy does) so that net/http cuts the client's
// connection instead of ending the body cleanly.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		writeError(w, &result{status: http.StatusServiceUnavailable}, "server_error", "proxy_shutting_down", "agent proxy: shutting down")
		return
	}
	defer p.handlers.Done()
	if p.refuse(w, r) {
		return
	}
	cleanPath(r)
	if r.URL.Path == StatsPath && r.Method == http.MethodGet {
		p.serveStats(w)
		return
	}
	p.stats.inFlight.Add(1)
	defer p.stats.inFlight.Add(-1)
	res := &result{id: p.seq.Add(1), method: r.Method, path: r.URL.Path, start: time.Now()}
	defer p.finish(res)
	if isWebSocket(r) {
		p.serveWebSocket(w, r, res)
		return
	}
	dw := newDeadlineWriter(w, p.opts.WriteTimeout)
	defer dw.clear()
	if r.Method == http.MethodPost && retried(route(r.URL.Path)) {
		p.forward(dw, r, res)
		return
	}
	p.passthrough(dw, r, res)
}

// retried reports whether a POST of route rest goes through the retry
// engine: the sampling endpoints of the Responses API, Chat Completions
// and Anthropic's Messages API. Other paths are relayed once.
func retried(rest string) bool {
	return rest == "/responses" || rest == "/chat/completions" || rest == "/messages"
}

// waitContext returns a context for r's waits (a retry's backoff, the
// gate): it ends with ctx or when the proxy begins to shut down. Call
// done when the request no longer waits.
func (p *Proxy) waitContext(ctx context.Context) (wctx context.Context, done func()) {
	wctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(p.stopping, cancel)
	return wctx, func() { unhook(); cancel() }
}

// clientGone reports whether r ended because its client went away (hung
// up, or stopped reading past WriteTimeout) rather than because the proxy
// cut it off at shutdown.
func (p *Proxy) clientGone(r *http.Request) bool {
	return r.Context().Err() != nil && !p.cut.Load()
}

// enter registers a running handler, unless Serve is done.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return false
	}
	p.handlers.Add(1)
	return true
}

// Serve accepts connections on ln, which it closes, and serves them until
// ctx ends. Then it shuts down gracefully: it stops accepting, answers
// the requests waiting to retry (or for the gate) at once with 503
// proxy_shutting_down, lets running requests and streams finish for up to
// ShutdownTimeout, then cancels the rest (their upstream requests and
// relayed WebSockets; a stream is cut) and returns once every handler
// has. It returns nil after a shutdown caused by ctx, otherwise the error
// that stopped it. Call Serve at most once.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	reqCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ErrorLog:          slog.NewLogLogger(p.opts.Logger.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	var err error
	select {
	case err = <-served:
		_ = srv.Close()
	case <-ctx.Done():
		p.stop() // waiting requests are answered before their connections close
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.ShutdownTimeout)
		if srv.Shutdown(sctx) != nil {
			p.cut.Store(true)
			cancelRequests()
			_ = srv.Close()
		}
		cancel()
		if err = <-served; errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
	}
	p.stop()
	cancelRequests() // hijacked (WebSocket) connections outlive Shutdown
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.handlers.Wait()
	if t, ok := p.opts.Transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return err
}

// route strips the optional /v1 prefix clients put before API paths:
// "/v1/responses" and "/responses" are both "/responses".
func route(path string) string {
	if rest, ok := strings.CutPrefix(path, "/v1"); ok && (rest == "" || rest[0] == '/') {
		return rest
	}
	return path
}

// upstreamURL maps a request URL onto the upstream API root.
func (p *Proxy) upstreamURL(in *url.URL) *url.URL {
	u := *p.opts.Upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + route(in.Path)
	u.RawPath = ""
	if p.opts.Upstream.RawQuery == "" && len(p.opts.Query) == 0 {
		u.RawQuery = in.RawQuery
		return &u
	}
	q := in.Query()
	for k, v := range p.opts.Upstream.Query() {
		q[k] = v
	}
	for k, v := range p.opts.Query {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	return &u
}

// isWebSocket reports whether r asks to upgrade to WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") && hasToken(r.Header["Connection"], "upgrade")
}

// hasToken reports whether a comma-separated header holds token.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// policy returns the retry policy of class, built as the agent's own.
func (p *Proxy) policy(class string) retry.Policy { return modelclient.PolicyOf(p.opts.Retry, class) }
