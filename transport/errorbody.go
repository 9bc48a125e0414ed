package transport

import (
	"encoding/json"
	"strings"
)

// ErrorBody is the "error" member of a server's error, in every shape
// servers send it: a string (Ollama's native API), or an object with a
// message, a type and a code that is a string or a number (OpenAI, vLLM,
// llama.cpp's server, LiteLLM), with OpenRouter's metadata (the upstream
// provider's name and its raw error, folded into Message). The
// classifier reads HTTP error bodies with it, the Chat Completions
// decoder the error chunks of a stream.
type ErrorBody struct {
	Message string
	Type    string
	// Code is a string code, or a numeric one's digits (often the HTTP
	// status).
	Code string
	// ResetsAt and ResetsIn are a usage limit's reset (Unix seconds, or
	// seconds from now), zero when absent.
	ResetsAt, ResetsIn int64
}

// UnmarshalJSON reads any of the shapes; null leaves e empty.
func (e *ErrorBody) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &e.Message)
	}
	var w struct {
		Message  string          `json:"message"`
		Type     json.RawMessage `json:"type"`
		Code     json.RawMessage `json:"code"`
		ResetsAt int64           `json:"resets_at"`
		ResetsIn int64           `json:"resets_in_seconds"`
		Metadata struct {
			Raw          json.RawMessage `json:"raw"`
			ProviderName string          `json:"provider_name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = ErrorBody{Message: w.Message, Type: scalar(w.Type), Code: scalar(w.Code), ResetsAt: w.ResetsAt, ResetsIn: w.ResetsIn}
	if up := upstream(w.Metadata.ProviderName, scalar(w.Metadata.Raw)); up != "" {
		e.Message = strings.TrimSpace(e.Message + " (" + up + ")")
	}
	return nil
}

// upstream says what OpenRouter's metadata tells of the provider behind
// it: "name: message", the message read out of the raw error when that
// is JSON in one of the shapes.
func upstream(name, raw string) string {
	var inner struct {
		Error ErrorBody `json:"error"`
	}
	if raw != "" && json.Unmarshal([]byte(raw), &inner) == nil && inner.Error.Message != "" {
		raw = inner.Error.Message
	}
	raw = strings.TrimSpace(raw)
	switch {
	case name == "":
		return raw
	case raw == "":
		return name
	}
	return name + ": " + raw
}

// scalar is a JSON string's value or a number's digits; "" for null or
// anything else.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
