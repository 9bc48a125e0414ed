package modelclient

import (
	"fmt"
	"net/http"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// A Wire is a wire format, the API a provider speaks (its wire_api): the
// [Encoder] that writes each sampling request and the [transport.Decoder]
// that reads its stream. The transports carry bytes; a [Client] speaks
// its provider's wire ([WireFor]): the Responses API ([Responses]), Chat
// Completions ([Chat]) or Anthropic's Messages API ([Anthropic]).
type Wire struct {
	// API is the wire_api value that chooses it.
	API string
	// Encoder writes the requests.
	Encoder Encoder
	// Decoder reads their streams, over SSE and WebSocket alike.
	Decoder transport.Decoder
	// WebSocket says the wire is served over WebSocket too (the
	// Responses API's response.create frames), where a request may be
	// sent as its increment on previous_response_id. For a wire without
	// it the client never tries WebSocket nor chains requests, whatever
	// the provider's transport settings say.
	WebSocket bool
}

// An Encoder is the writing half of a wire format: what goes out for one
// sampling request, built from the session's history. What every wire
// sends (the provider's http_headers and env_http_headers, the session's
// ids, originator and User-Agent, the credentials) the [Client] adds.
// Implementations are safe for concurrent use.
type Encoder interface {
	// URL is the sampling endpoint of provider p: its base_url, the
	// wire's path, its query_params.
	URL(p provider.Info) string
	// Header returns the headers to send for h, the client's headers of
	// one attempt (credentials included): h itself, or a copy with the
	// wire's own headers (a version header; a credential moved to the
	// header the API reads it from). It must not change h, which the 401
	// recovery reads as what was sent.
	Header(h http.Header) http.Header
	// Body encodes one sampling request.
	Body(r *Call) ([]byte, error)
}

// Call is what one sampling request is encoded from.
type Call struct {
	// Prompt is the session's history and tools, rebuilt for every
	// attempt.
	Prompt *Prompt
	// Settings are the turn's model and its options.
	Settings Settings
	// SessionID is the session's id (the prompt cache key).
	SessionID string
	// PreviousResponseID, when set, chains the request on a response
	// of the same connection: Prompt's input is then only what was
	// added since (a [Wire] with WebSocket alone is asked for it).
	PreviousResponseID string
	// MaxOutputTokens is the model's output limit ([Options].OutputLimit);
	// 0 when unknown. A wire that must name a limit (Anthropic's
	// max_tokens) asks for it; the others send none.
	MaxOutputTokens int64
}

// Responses is the Responses API's wire: POST {base_url}/responses, over
// SSE or WebSocket.
func Responses() Wire {
	return Wire{API: provider.WireAPIResponses, Encoder: responsesEncoder{}, Decoder: transport.ResponsesDecoder{}, WebSocket: true}
}

// WireFor returns the wire of a provider's wire_api ("" is the
// Responses API, as in a provider.Info built by hand); any other value is
// an error naming it.
func WireFor(api string) (Wire, error) {
	switch api {
	case "", provider.WireAPIResponses:
		return Responses(), nil
	case provider.WireAPIChat:
		return Chat(), nil
	case provider.WireAPIAnthropic:
		return Anthropic(), nil
	}
	return Wire{}, &WireError{API: api}
}

// WireError is a wire_api agent does not speak: every request of a
// client for it fails with it, before anything is sent.
type WireError struct {
	// API is the wire_api value.
	API string
}

func (e *WireError) Error() string {
	return fmt.Sprintf("wire_api %q is not supported; use %q, %q or %q", e.API, provider.WireAPIResponses, provider.WireAPIChat, provider.WireAPIAnthropic)
}
