package modelclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcli/agent/internal/bigcopy"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// responsesEncoder is the Responses API's [Encoder].
type responsesEncoder struct{}

// URL is POST {base_url}/responses, with the provider's query_params.
func (responsesEncoder) URL(p provider.Info) string {
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

// Header adds nothing: the Responses API reads what every wire sends
// (the WebSocket handshake's OpenAI-Beta is transport/ws's).
func (responsesEncoder) Header(h http.Header) http.Header { return h }

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
	ServiceTier        string            `json:"service_tier,omitempty"`
	Text               map[string]any    `json:"text,omitempty"`
}

// Body encodes r as a streamed Responses request.
func (e responsesEncoder) Body(r *Call) ([]byte, error) {
	parts, err := e.BodyParts(r)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	body := make([]byte, 0, n)
	for _, p := range parts {
		body = bigcopy.Append(body, p)
	}
	return body, nil
}

// BodyParts is [responsesEncoder.Body] in parts, the input's items as
// they lie (see marshalBody).
func (responsesEncoder) BodyParts(r *Call) ([][]byte, error) {
	p, st := r.Prompt, r.Settings
	b := requestBody{
		Model:              st.Model,
		PreviousResponseID: r.PreviousResponseID,
		Instructions:       p.Instructions,
		Input:              p.Input,
		Tools:              p.Tools,
		ToolChoice:         "auto",
		ParallelToolCalls:  p.ParallelToolCalls,
		Reasoning:          map[string]string{},
		Stream:             true,
		Include:            []string{"reasoning.encrypted_content"},
		PromptCacheKey:     r.SessionID,
		ServiceTier:        st.ServiceTier,
	}
	if b.ServiceTier == "fast" {
		b.ServiceTier = "priority"
	}
	if b.Input == nil {
		b.Input = []transport.Item{}
	}
	if b.Tools == nil {
		b.Tools = []json.RawMessage{}
	}
	if e := st.ReasoningEffort; e != "" {
		b.Reasoning["effort"] = e
	}
	if s := st.ReasoningSummary; s != "" && s != "none" {
		b.Reasoning["summary"] = s
	}
	if v := st.Verbosity; v != "" {
		b.Text = map[string]any{"verbosity": v}
	}
	if len(p.OutputSchema) > 0 {
		if !json.Valid(p.OutputSchema) {
			return nil, errors.New("output schema: not valid JSON")
		}
		if b.Text == nil {
			b.Text = map[string]any{}
		}
		b.Text["format"] = map[string]any{
			"type": "json_schema", "strict": true, "name": "agent_output_schema", "schema": p.OutputSchema,
		}
	}
	return marshalBody(b)
}

// marshalBody encodes b with its input's items written as they are
// (their Raw, compact JSON as decoded or marshalled), in parts: the
// request's fields, then each item where it lies, then the rest. A history
// holding a 120 MiB tool call is not copied into the request at all (it
// was copied once, into a body of its size, and before that compacted by
// encoding/json into a growing buffer and copied out of it): sent from
// the parts, the request costs what its small fields do (issue 42). Every
// item's Raw is valid JSON by construction (decoded from the server or a
// rollout, or marshalled here) and never written in place.
func marshalBody(b requestBody) ([][]byte, error) {
	input := b.Input
	if len(input) == 0 {
		body, err := json.Marshal(b)
		return [][]byte{body}, err
	}
	b.Input = nil
	head, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	// "input" follows model, previous_response_id and instructions, all
	// strings, whose quotes are escaped: its first unescaped occurrence
	// is the field.
	const empty = `"input":null`
	at := bytes.Index(head, []byte(empty))
	if at < 0 {
		return nil, errors.New("request body: no input field")
	}
	comma := []byte{','} // between the items, shared
	parts := make([][]byte, 0, 2*len(input)+2)
	parts = append(parts, append(head[:at:at], `"input":[`...))
	for i, it := range input {
		if i > 0 {
			parts = append(parts, comma)
		}
		raw, _ := it.MarshalJSON()
		parts = append(parts, raw)
	}
	return append(parts, append([]byte{']'}, head[at+len(empty):]...)), nil
}
