package responsestest

import "encoding/json"

// Message is one message of a request's input: its role and the text of
// each of its content parts.
type Message struct {
	Role string
	Text []string
}

// InputMessages decodes the input of a Responses request body (a POST
// body or a WebSocket message) into its messages, in order; input items
// that are not messages (tool calls and outputs, reasoning) are left out.
// A body that is not a request is an error.
func InputMessages(body []byte) ([]Message, error) {
	var req struct {
		Input []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Message
	for _, it := range req.Input {
		if it.Role == "" || it.Type != "" && it.Type != "message" {
			continue
		}
		m := Message{Role: it.Role}
		for _, c := range it.Content {
			m.Text = append(m.Text, c.Text)
		}
		out = append(out, m)
	}
	return out, nil
}
