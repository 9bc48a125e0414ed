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
func (responsesEncoder) Body(r *Call) ([]byte, error) {
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

// marshalBody is json.Marshal(b) with the input items written as they
// are (their Raw, compact JSON as decoded or marshalled) into a body of
// the size it needs: a history holding a 10 MiB tool call is copied once
// into the request, not compacted into encoding/json's growing buffer and
// then copied out of it. Every item's Raw is valid JSON by construction
// (decoded from the server or a rollout, or marshalled here).
func marshalBody(b requestBody) ([]byte, error) {
	input := b.Input
	if len(input) == 0 {
		return json.Marshal(b)
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
	n := len(head) + len(input)
	for _, it := range input {
		n += max(len(it.Raw), len("null"))
	}
	body := make([]byte, 0, n)
	body = append(body, head[:at]...)
	body = append(body, `"input":[`...)
	for i, it := range input {
		if i > 0 {
			body = append(body, ',')
		}
		raw, _ := it.MarshalJSON()
		body = bigcopy.Append(body, raw)
	}
	body = append(body, ']')
	return append(body, head[at+len(empty):]...), nil
}
