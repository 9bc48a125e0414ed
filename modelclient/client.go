// Package modelclient talks to a model provider: it builds requests in
// the provider's wire format ([Wire], chosen by wire_api: an [Encoder]
// and a transport.Decoder; the Responses API so far) and runs each
// sampling request ([Turn.Sample]) under every
// retry layer through the one retry driver (HTTP, stream, overload,
// connection, WebSocket fallback, 401 recovery), and classifies every
// error in one place ([Classify]). A [Client] lives as long as a session
// and holds what the session's turns share; it is safe for concurrent
// use. It hands each turn a [Turn] ([Client.NewTurn]) with the turn's own
// budgets, request count, WebSocket chain and headers, whose
// [Turn.Sample] ends a failed request in one [Outcome].
package modelclient

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
	"github.com/agentcli/agent/transport/ws"
)

// Options configure a [Client].
type Options struct {
	// Provider is where requests go (required: BaseURL).
	Provider provider.Info
	// Auth authenticates each attempt (see [Credentials]); nil sends no
	// Authorization header.
	Auth Credentials
	// SessionID identifies the session (session-id, thread-id and
	// x-client-request-id headers, prompt_cache_key): a Client is one
	// session's.
	SessionID string
	// Originator names the front end ("agent_exec", "agent_cli").
	Originator string
	// Version is the agent version for the User-Agent.
	Version string
	// Getenv reads env_http_headers variables; default returns "".
	Getenv func(string) string
	// HTTPClient is used by the default SSE transport.
	HTTPClient *http.Client
	// Transport overrides the default SSE transport.
	Transport transport.Transport
	// ReadBatch is the default SSE transport's [sse.Options.ReadBatch]:
	// how long a stream that has caught up with the server waits to read
	// the next events together. Zero (the default) reads at once.
	ReadBatch time.Duration
	// Sleep waits between retries; default [retry.Sleep].
	Sleep retry.Sleeper
	// Rand returns jitter draws in [0,1); default math/rand/v2.
	Rand func() float64
	// Logger receives one line per retry; default discards.
	Logger *slog.Logger
	// Now is the clock for server-given times (a pause until a
	// Retry-After); default time.Now.
	Now func() time.Time
	// CredentialSource names where Auth's secret comes from ("environment
	// variable OPENAI_API_KEY", "auth command ..."), for the error that
	// refuses a credential no HTTP header can carry.
	CredentialSource string
	// Gate, when set, is the retry gate this client shares with others
	// (agent exec --batch): every re-send waits for one of its slots, every
	// request waits out its cooldowns, and rate_limit and overloaded
	// waits become cooldowns for all. Nil: none.
	Gate *gate.Gate
	// Observer hears about each sampling request's attempts (telemetry);
	// nil: nobody.
	Observer Observer
	// OutputLimit is a model's output limit in tokens (the catalogue's
	// limit.output), for a wire that must name one ([Call].MaxOutputTokens:
	// Anthropic's max_tokens); nil, or 0 for a model: unknown, the wire's
	// default.
	OutputLimit func(model string) int64
}

// Close releases the cached WebSocket connection, if any.
func (c *Client) Close() error {
	return c.ws.Close()
}

// Client is the session-scoped model client: what a session's turns
// share (the transport choice, the sticky fallback, the cached WebSocket
// connection, credentials and 401 recovery). Each turn gets its own
// [Turn] ([Client.NewTurn]).
type Client struct {
	opts      Options
	transport transport.Transport
	// wire is the API the provider speaks: it writes the requests and
	// reads their streams. wireErr, a wire_api agent does not speak,
	// fails every request instead.
	wire    Wire
	wireErr error
	url     string // the wire's endpoint for the provider
	// disableWS is the sticky, session-wide fallback to HTTPS: it flips
	// once and never back.
	disableWS atomic.Bool
	ws        *ws.Transport
	// cache is what the last completed request on the cached connection
	// established: a new turn's chain starts from it.
	cache wsChain
	// proxied is set once an answer of a retrying proxy was seen.
	proxied atomic.Bool
}

// New returns a Client for opts, speaking the wire of the provider's
// wire_api ([WireFor]; one agent does not speak fails every request,
// before anything is sent).
func New(opts Options) *Client {
	w, err := WireFor(opts.Provider.WireAPI)
	return newClient(opts, w, err)
}

// newClient is [New] speaking w, or failing every request with wireErr.
func newClient(opts Options, w Wire, wireErr error) *Client {
	if opts.Sleep == nil {
		opts.Sleep = retry.Sleep
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Originator == "" {
		opts.Originator = "agent"
	}
	t := opts.Transport
	if t == nil {
		t = sse.New(&sse.Options{
			HTTPClient:      opts.HTTPClient,
			IdleTimeout:     opts.Provider.StreamIdleTimeout,
			ProgressTimeout: opts.Provider.StreamProgressTimeout,
			MaxEventSize:    int(opts.Provider.StreamMaxEventBytes),
			ReadBatch:       opts.ReadBatch,
			Decoder:         w.Decoder,
		})
	}
	c := &Client{opts: opts, transport: t, wire: w, wireErr: wireErr}
	if wireErr != nil {
		c.wireErr = &classifiedError{f: Failure{Kind: KindConfig, Message: wireErr.Error(), Err: wireErr}}
	} else {
		c.url = w.Encoder.URL(opts.Provider)
	}
	// Only a wire served over WebSocket dials one; the transport is
	// there regardless, idle, so Close and FallBack need no case.
	c.ws = ws.NewTransport(&ws.Options{
		HTTPClient:      opts.HTTPClient,
		ConnectTimeout:  opts.Provider.WebSocketConnectTimeout,
		IdleTimeout:     opts.Provider.StreamIdleTimeout,
		ProgressTimeout: opts.Provider.StreamProgressTimeout,
		MaxMessageSize:  opts.Provider.StreamMaxEventBytes,
		Decoder:         w.Decoder,
	})
	return c
}

// Provider returns the provider the client talks to.
func (c *Client) Provider() provider.Info { return c.opts.Provider }

// SessionID returns the id of the session the client serves.
func (c *Client) SessionID() string { return c.opts.SessionID }

// Sleep waits d on the client's clock, honouring ctx.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error { return c.opts.Sleep(ctx, d) }

// Rand draws a jitter value in [0,1).
func (c *Client) Rand() float64 { return c.opts.Rand() }

// Policy returns the retry policy of class for this provider.
func (c *Client) Policy(class string) retry.Policy { return PolicyOf(c.opts.Provider.Retry, class) }

// PolicyOf turns the configured policy of class (the default when classes
// lacks it) into a [retry.Policy]: on the overload schedule
// ([provider.ClassBehaviour].Overload) jitter only lengthens delays, so a
// crowd of clients never comes back early.
func PolicyOf(classes map[string]provider.ClassPolicy, class string) retry.Policy {
	cp, ok := classes[class]
	if !ok {
		cp = provider.DefaultRetry()[class]
	}
	return retry.Policy{
		MaxRetries: cp.MaxRetries,
		Base:       cp.BaseDelay,
		Max:        cp.MaxDelay,
		Jitter:     cp.Jitter,
		UpOnly:     provider.Behaviour(class).Overload,
		Delays:     cp.Delays,
	}
}

// Prompt is what one sampling request carries besides the client's
// settings. It is rebuilt from history for every attempt.
type Prompt struct {
	Instructions      string
	Input             []transport.Item
	Tools             []json.RawMessage
	ParallelToolCalls bool
	// OutputSchema, when set, becomes a strict json_schema text format.
	OutputSchema json.RawMessage
}

// Body encodes the JSON body for p under the turn's settings st, in the
// client's wire.
func (c *Client) Body(p *Prompt, st Settings) ([]byte, error) { return c.encode(p, st, "") }

// encode encodes p under st in the client's wire, chained on
// previousResponseID when it is not empty.
func (c *Client) encode(p *Prompt, st Settings, previousResponseID string) ([]byte, error) {
	if c.wireErr != nil {
		return nil, c.wireErr
	}
	call := &Call{Prompt: p, Settings: st, SessionID: c.opts.SessionID, PreviousResponseID: previousResponseID}
	if c.opts.OutputLimit != nil {
		call.MaxOutputTokens = c.opts.OutputLimit(st.Model)
	}
	return c.wire.Encoder.Body(call)
}

// encodeParts is encode with the body in parts, when the wire's encoder
// makes them (Responses: the input's items as they lie, not copied).
func (c *Client) encodeParts(p *Prompt, st Settings, previousResponseID string) ([][]byte, error) {
	e, ok := c.wire.Encoder.(interface{ BodyParts(*Call) ([][]byte, error) })
	if c.wireErr != nil || !ok {
		b, err := c.encode(p, st, previousResponseID)
		return [][]byte{b}, err
	}
	call := &Call{Prompt: p, Settings: st, SessionID: c.opts.SessionID, PreviousResponseID: previousResponseID}
	if c.opts.OutputLimit != nil {
		call.MaxOutputTokens = c.opts.OutputLimit(st.Model)
	}
	return e.BodyParts(call)
}

// HeaderError is a header no HTTP request can carry (a line break or
// another control character in its value): the request is refused
// locally, before anything is sent, and not retried.
type HeaderError struct {
	// Header is the header's name.
	Header string
	// Source is where its value came from, in words.
	Source string
	// Credential says the value is a credential (an API key or token).
	Credential bool
}

func (e *HeaderError) Error() string {
	what := "header " + e.Header
	if e.Credential {
		what = "credential"
	}
	return fmt.Sprintf("the %s from %s contains a line break or control character; no request was sent", what, e.Source)
}

// validHeaderValue reports whether v can be sent as an HTTP header value
// (no CR, LF, NUL or other control characters but tab).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// header builds the headers of one attempt, token included. A value that
// cannot be sent is a [*HeaderError] naming its source.
func (c *Client) header(ctx context.Context) (http.Header, error) {
	h := http.Header{}
	p := c.opts.Provider
	for _, k := range slices.Sorted(maps.Keys(p.HTTPHeaders)) {
		if !validHeaderValue(p.HTTPHeaders[k]) {
			return nil, &HeaderError{Header: k, Source: fmt.Sprintf("model_providers.%s.http_headers.%s in config", p.ID, k)}
		}
		h.Set(k, p.HTTPHeaders[k])
	}
	for _, k := range slices.Sorted(maps.Keys(p.EnvHTTPHeaders)) {
		if v := strings.TrimSpace(c.opts.Getenv(p.EnvHTTPHeaders[k])); v != "" {
			if !validHeaderValue(v) {
				return nil, &HeaderError{Header: k, Source: fmt.Sprintf("environment variable %s (model_providers.%s.env_http_headers)", p.EnvHTTPHeaders[k], p.ID)}
			}
			h.Set(k, v)
		}
	}
	if c.opts.SessionID != "" {
		h.Set("session-id", c.opts.SessionID)
		h.Set("thread-id", c.opts.SessionID)
		h.Set("x-client-request-id", c.opts.SessionID)
	}
	h.Set("originator", c.opts.Originator)
	h.Set("User-Agent", fmt.Sprintf("%s/%s (%s; %s)", c.opts.Originator, c.opts.Version, runtime.GOOS, runtime.GOARCH))
	if c.opts.Auth != nil {
		if err := c.opts.Auth.Apply(ctx, h); err != nil {
			return nil, fmt.Errorf("authenticate: %w", err)
		}
	}
	for k, vs := range h {
		for _, v := range vs {
			if !validHeaderValue(v) {
				src := c.opts.CredentialSource
				if src == "" {
					src = "the configured credentials"
				}
				return nil, &HeaderError{Header: k, Source: src, Credential: true}
			}
		}
	}
	return h, nil
}
