// Package provider defines model providers as data: where a provider lives,
// how requests to it are authenticated and decorated, and the retry and
// timeout limits that apply to it. It holds no behaviour; the config package
// fills an [Info] from config.toml and the modelclient package acts on it.
package provider

import (
	"maps"
	"time"
)

// Defaults and caps, identical to the reference client's
// (codex-rs/model-provider-info).
const (
	DefaultRequestMaxRetries       = 4
	MaxRequestMaxRetries           = 100
	DefaultStreamMaxRetries        = 5
	MaxStreamMaxRetries            = 100
	DefaultStreamIdleTimeout       = 300 * time.Second
	DefaultWebSocketConnectTimeout = 15 * time.Second
	// DefaultStreamProgressTimeout ends a stream that stays alive (keep-alive
	// comments, pings) but delivers no event for this long.
	DefaultStreamProgressTimeout = 600 * time.Second
	// DefaultConnectionMaxWait bounds, in exec and batch, the total wait
	// of the connection retries of one sampling request.
	DefaultConnectionMaxWait = 10 * time.Minute
	// DefaultRetryMaxWait is how long, by default, a failure that does not
	// clear is retried before it is final: every layer's retries and the
	// turn's continuations inside one bound ([retry] max_wait_ms).
	DefaultRetryMaxWait = 50 * time.Second
)

// Transport choices for a provider ("transport" in config).
const (
	// TransportAuto uses WebSocket when the provider supports it and falls
	// back to HTTPS (SSE) when it fails.
	TransportAuto = "auto"
	// TransportWebSocket insists on WebSocket (still falling back on 426).
	TransportWebSocket = "websocket"
	// TransportHTTPS never tries WebSocket.
	TransportHTTPS = "https"
)

// The wire protocols (wire_api) agent speaks.
const (
	// WireAPIResponses is the Responses API, the default.
	WireAPIResponses = "responses"
	// WireAPIChat is Chat Completions (POST {base_url}/chat/completions).
	WireAPIChat = "chat"
	// WireAPIAnthropic is the Anthropic Messages API (POST
	// {base_url}/messages).
	WireAPIAnthropic = "anthropic"
)

// DemoID is the id of the built-in offline demo provider. Its BaseURL is
// empty in the catalogue: the command line starts the scripted demo server on
// loopback and fills it in.
const DemoID = "demo"

// Info describes one model provider. The zero value is not useful; start
// from [Builtins] or from config. Info is a plain value: copy it freely,
// but treat its maps as read-only once shared (use [Info.Clone]).
type Info struct {
	// ID is the key under [model_providers.<id>] (or the built-in id).
	ID string
	// Name is the display name.
	Name string
	// BaseURL is the API root; requests go to BaseURL + "/responses".
	BaseURL string
	// EnvKey names the environment variable holding the API key. Empty
	// means the provider needs no key (or gets one from auth.json).
	EnvKey string
	// EnvKeyInstructions is shown when EnvKey is unset.
	EnvKeyInstructions string
	// WireAPI is [WireAPIResponses], [WireAPIChat] or [WireAPIAnthropic]
	// after validation.
	WireAPI string
	// QueryParams are appended to every request URL.
	QueryParams map[string]string
	// HTTPHeaders are sent with every request.
	HTTPHeaders map[string]string
	// EnvHTTPHeaders maps a header name to an environment variable; the
	// header is sent when the variable is set and not blank.
	EnvHTTPHeaders map[string]string
	// RequestMaxRetries is the HTTP-layer retry budget (retries after the
	// first attempt), capped at [MaxRequestMaxRetries].
	RequestMaxRetries int
	// StreamMaxRetries is the stream-layer retry budget, capped at
	// [MaxStreamMaxRetries].
	StreamMaxRetries int
	// StreamIdleTimeout ends a stream that delivers no bytes for this long.
	StreamIdleTimeout time.Duration
	// StreamProgressTimeout ends a stream that delivers bytes (keep-alives)
	// but no event for this long.
	StreamProgressTimeout time.Duration
	// StreamMaxEventBytes bounds one event of a stream
	// (stream_max_event_bytes); a larger one ends the request, not
	// retried. Zero: [transport.MaxEventSize].
	StreamMaxEventBytes int64
	// Transport is TransportAuto, TransportWebSocket or TransportHTTPS.
	Transport string
	// WebSocketConnectTimeout bounds the WebSocket handshake.
	WebSocketConnectTimeout time.Duration
	// ConnectionMaxWait bounds the total wait of the connection retries
	// of one sampling request in exec and batch (connection_max_wait_ms);
	// zero waits until interrupted. The chat always waits until Esc.
	ConnectionMaxWait time.Duration
	// RetryMaxWait bounds the time a failure that does not clear is
	// retried, from the start of the first request that failed: every
	// layer and the turn's continuations ([retry] max_wait_ms); zero: no
	// bound. A wait the server names and the connection layer (its own
	// ConnectionMaxWait) may go beyond it.
	RetryMaxWait time.Duration
	// SupportsWebSockets says the provider speaks Responses over WebSocket.
	SupportsWebSockets bool
	// RequiresOpenAIAuth says the provider uses auth.json / login.
	RequiresOpenAIAuth bool
	// Demo marks the built-in offline demo provider.
	Demo bool
	// CustomTools says the provider accepts custom (freeform, grammar)
	// tools, so apply_patch is offered in that form.
	CustomTools bool
	// RemoteCompaction says the provider serves POST
	// {base_url}/responses/compact (the OpenAI API does).
	RemoteCompaction bool
	// Retry holds the policy of each retry class, keyed by class name; it
	// always has every class in [Classes].
	Retry map[string]ClassPolicy
}

// Clone returns a deep copy of p.
func (p Info) Clone() Info {
	p.QueryParams = maps.Clone(p.QueryParams)
	p.HTTPHeaders = maps.Clone(p.HTTPHeaders)
	p.EnvHTTPHeaders = maps.Clone(p.EnvHTTPHeaders)
	p.Retry = maps.Clone(p.Retry)
	return p
}

// withDefaults returns an Info with the retry and timeout defaults set.
func withDefaults(p Info) Info {
	p.WireAPI = WireAPIResponses
	p.RequestMaxRetries = DefaultRequestMaxRetries
	p.StreamMaxRetries = DefaultStreamMaxRetries
	p.StreamIdleTimeout = DefaultStreamIdleTimeout
	p.StreamProgressTimeout = DefaultStreamProgressTimeout
	p.Transport = TransportAuto
	p.WebSocketConnectTimeout = DefaultWebSocketConnectTimeout
	p.ConnectionMaxWait = DefaultConnectionMaxWait
	p.RetryMaxWait = DefaultRetryMaxWait
	p.Retry = DefaultRetry()
	return p
}

// Builtins returns the built-in providers, keyed by id. Each call returns
// fresh values. User config cannot redefine these ids.
func Builtins() map[string]Info {
	return map[string]Info{
		"openai": withDefaults(Info{
			ID:                 "openai",
			Name:               "OpenAI",
			BaseURL:            DefaultBaseURL,
			EnvKey:             "OPENAI_API_KEY",
			EnvKeyInstructions: "Create an API key at https://platform.openai.com/api-keys and export OPENAI_API_KEY.",
			EnvHTTPHeaders: map[string]string{
				"OpenAI-Organization": "OPENAI_ORGANIZATION",
				"OpenAI-Project":      "OPENAI_PROJECT",
			},
			SupportsWebSockets: true,
			RequiresOpenAIAuth: true,
			RemoteCompaction:   true,
			CustomTools:        true,
		}),
		"ollama": withDefaults(Info{
			ID:      "ollama",
			Name:    "Ollama",
			BaseURL: "http://localhost:11434/v1",
		}),
		"lmstudio": withDefaults(Info{
			ID:      "lmstudio",
			Name:    "LM Studio",
			BaseURL: "http://localhost:1234/v1",
		}),
		DemoID: withDefaults(Info{
			ID:   DemoID,
			Name: "Demo (offline, scripted)",
			Demo: true,
		}),
	}
}

// Custom returns a user-defined provider with every default applied, for
// config to overwrite field by field.
func Custom(id string) Info {
	return withDefaults(Info{ID: id, Name: id})
}

// DefaultBaseURL is the API root of a provider whose base_url is empty:
// the reference client's default.
const DefaultBaseURL = "https://api.openai.com/v1"

// APIRoot is where requests to the provider go: its BaseURL, or
// [DefaultBaseURL] when that is empty (the demo provider's is set when it
// starts; it has none before).
func (p Info) APIRoot() string {
	if p.BaseURL == "" && !p.Demo {
		return DefaultBaseURL
	}
	return p.BaseURL
}
