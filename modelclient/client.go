// Package modelclient talks to a model provider: it builds Responses
// requests, opens streams through a transport, retries failures before the
// first byte (the HTTP layer), and classifies every error in one place
// ([Classify]). A [Client] lives as long as a session and holds what the
// session's turns share; it is safe for concurrent use.
package modelclient

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/retrygate"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

// Options configure a [Client].
type Options struct {
	// Provider is where requests go (required: BaseURL).
	Provider provider.Info
	// Model is the model slug sent with every request.
	Model string
	// ReasoningEffort and ReasoningSummary fill the "reasoning" object;
	// empty values are omitted.
	ReasoningEffort, ReasoningSummary string
	// Auth authenticates each attempt (see [Credentials]); nil sends no
	// Authorization header.
	Auth Credentials
	// SessionID identifies the session (session-id header, prompt cache key).
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
	// Sleep waits between retries; default [retry.Sleep].
	Sleep retry.Sleeper
	// Rand returns jitter draws in [0,1); default math/rand/v2.
	Rand func() float64
	// Logger receives one line per retry; default discards.
	Logger *slog.Logger
	// RetryOn selects what the HTTP layer retries; nil means everything
	// retryable (429, 5xx and transport failures).
	RetryOn *RetryOn
	// Gate, when set, is the retry gate this client shares with others
	// (agent exec --batch): every re-send waits for one of its slots, every
	// request waits out its cooldowns, and [Client.Backoff] turns
	// rate_limit and overloaded waits into cooldowns for all. Nil: none.
	Gate *retrygate.Gate
}

// Close releases the cached WebSocket connection, if any.
func (c *Client) Close() error {
	c.ws.reset()
	return nil
}

// Client is the session-scoped model client.
type Client struct {
	opts      Options
	transport transport.Transport
	url       string
	// disableWS is the sticky, session-wide fallback to HTTPS: it flips
	// once and never back.
	disableWS atomic.Bool
	ws        wsState
}

// New returns a Client for opts.
func New(opts Options) *Client {
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
	if opts.RetryOn == nil {
		opts.RetryOn = &RetryOn{RateLimit: true, ServerError: true, Transport: true}
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
		})
	}
	return &Client{opts: opts, transport: t, url: responsesURL(opts.Provider)}
}

// Provider returns the provider the client talks to.
func (c *Client) Provider() provider.Info { return c.opts.Provider }

// Sleep waits d on the client's clock, honouring ctx.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error { return c.opts.Sleep(ctx, d) }

// Rand draws a jitter value in [0,1).
func (c *Client) Rand() float64 { return c.opts.Rand() }

// Policy returns the retry policy of class for this provider.
func (c *Client) Policy(class string) retry.Policy { return PolicyOf(c.opts.Provider.Retry, class) }

// PolicyOf turns the configured policy of class (the default when classes
// lacks it) into a [retry.Policy]: the overloaded class's jitter only
// lengthens delays, so a crowd of clients never comes back early.
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
		UpOnly:     class == provider.ClassOverloaded,
		Delays:     cp.Delays,
	}
}

func responsesURL(p provider.Info) string {
	u := strings.TrimRight(p.BaseURL, "/") + "/responses"
	if len(p.QueryParams) == 0 {
		return u
	}
	q := url.Values{}
	for k, v := range p.QueryParams {
		q.Set(k, v)
	}
	return u + "?" + q.Encode() // Encode sorts keys: stable URLs
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

type requestBody struct {
	Model              string            `json:"model"`
	PreviousResponseID string            `json:"previous_response_id,omitempty"`
	Instructions       string            `json:"instructions,omitempty"`
	Input              []transport.Item  `json:"input"`
	Tools              []json.RawMessage `json:"tools"`
	ToolChoice         string            `json:"tool_choice"`
	ParallelToolCalls  bool              `json:"parallel_tool_calls"`
	Reasoning          map[string]string `json:"reasoning"`
	Store              bool              `json:"store"`
	Stream             bool              `json:"stream"`
	Include            []string          `json:"include"`
	PromptCacheKey     string            `json:"prompt_cache_key,omitempty"`
	Text               json.RawMessage   `json:"text,omitempty"`
}

// Body encodes the JSON body for p.
func (c *Client) Body(p *Prompt) ([]byte, error) { return c.encode(p, "") }

// encode encodes p, chained on previousResponseID when it is not empty.
func (c *Client) encode(p *Prompt, previousResponseID string) ([]byte, error) {
	b := requestBody{
		Model:              c.opts.Model,
		PreviousResponseID: previousResponseID,
		Instructions:       p.Instructions,
		Input:              p.Input,
		Tools:              p.Tools,
		ToolChoice:         "auto",
		ParallelToolCalls:  p.ParallelToolCalls,
		Reasoning:          map[string]string{},
		Stream:             true,
		Include:            []string{"reasoning.encrypted_content"},
		PromptCacheKey:     c.opts.SessionID,
	}
	if b.Input == nil {
		b.Input = []transport.Item{}
	}
	if b.Tools == nil {
		b.Tools = []json.RawMessage{}
	}
	if e := c.opts.ReasoningEffort; e != "" {
		b.Reasoning["effort"] = e
	}
	if s := c.opts.ReasoningSummary; s != "" && s != "none" {
		b.Reasoning["summary"] = s
	}
	if len(p.OutputSchema) > 0 {
		t, err := json.Marshal(map[string]any{"format": map[string]any{
			"type": "json_schema", "strict": true, "name": "agent_output_schema", "schema": p.OutputSchema,
		}})
		if err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
		b.Text = t
	}
	return json.Marshal(b)
}

// header builds the headers of one attempt, token included.
func (c *Client) header(ctx context.Context) (http.Header, error) {
	h := http.Header{}
	p := c.opts.Provider
	for _, k := range slices.Sorted(maps.Keys(p.HTTPHeaders)) {
		h.Set(k, p.HTTPHeaders[k])
	}
	for _, k := range slices.Sorted(maps.Keys(p.EnvHTTPHeaders)) {
		if v := strings.TrimSpace(c.opts.Getenv(p.EnvHTTPHeaders[k])); v != "" {
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
	return h, nil
}
