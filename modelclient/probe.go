package modelclient

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentcli/agent/provider"
)

// probeBody is the request [ProbeResponses] sends: no server can run it
// (no model, an input that is not text or items), so one that
// authenticates first answers 400 (FastAPI servers 422) with a valid
// credential, 401 or 403 with a refused one, and no model runs.
const probeBody = `{"model":"","input":0}`

// chatProbeBody is [probeBody] for a Chat Completions or Messages
// endpoint: messages that are not a list.
const chatProbeBody = `{"model":"","messages":0}`

// Probe is what [ProbeResponses] found.
type Probe struct {
	URL    string        // the Responses endpoint probed
	Status string        // its answer's status line, "400 Bad Request"
	Took   time.Duration // from sending to the answer's headers
	// Accepted says the endpoint is there and took the credential: it
	// refused the request itself (400 or 422), not who sent it.
	Accepted bool
	// Rejected says the credential was refused (401 or 403).
	Rejected bool
}

// ProbeResponses checks a credential against the Responses endpoint of
// baseURL without running a model, for a provider that does not serve
// GET /models (404 or 405 there): it POSTs baseURL/responses a request
// that must be refused as invalid, with header h (the credential and the
// provider's headers), and reads what the refusal says about the
// credential (see [Probe]). An error is a request that got no answer.
func ProbeResponses(ctx context.Context, hc *http.Client, baseURL string, h http.Header) (Probe, error) {
	return ProbeWire(ctx, hc, provider.WireAPIResponses, baseURL, h)
}

// ProbeWire is [ProbeResponses] for the sampling endpoint of wire_api
// api: POST baseURL/chat/completions for "chat", POST baseURL/messages
// (the key as x-api-key, with anthropic-version) for "anthropic", each
// with messages that are not a list.
func ProbeWire(ctx context.Context, hc *http.Client, api, baseURL string, h http.Header) (Probe, error) {
	path, body := "/responses", probeBody
	switch api {
	case provider.WireAPIChat:
		path, body = "/chat/completions", chatProbeBody
	case provider.WireAPIAnthropic:
		path, body = "/messages", chatProbeBody
		h = AnthropicHeader(h)
	}
	p := Probe{URL: strings.TrimSuffix(baseURL, "/") + path}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(body))
	if err != nil {
		return p, err
	}
	req.Header = h.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return p, err
	}
	p.Took = time.Since(start)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	p.Status = resp.Status
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		p.Accepted = true
	case http.StatusUnauthorized, http.StatusForbidden:
		p.Rejected = true
	}
	return p, nil
}
