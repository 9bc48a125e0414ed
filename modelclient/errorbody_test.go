package modelclient

import (
	"net/http"
	"testing"

	"github.com/agentcli/agent/transport"
)

// TestErrorBodyOfAnyJSONShape: an error body's message is found whatever
// JSON shape a server gives it, pretty-printed or not (a 404 of Ollama's
// showed as "404 {").
func TestErrorBodyOfAnyJSONShape(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"{\n  \"error\": \"model 'x' not found, try pulling it first\"\n}", "model 'x' not found, try pulling it first"},
		{`{"error":"model 'x' not found"}`, "model 'x' not found"},
		{"{\n  \"error\": {\n    \"message\": \"The model `x` does not exist\",\n    \"type\": \"invalid_request_error\"\n  }\n}", "The model `x` does not exist"},
		{`{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`, "field required"},
		{`{"errors":[{"message":"quota gone","code":7}]}`, "quota gone"},
		{`{"error":{"code":404,"status":"NOT_FOUND","details":[]}}`, `{"error":{"code":404,"status":"NOT_FOUND","details":[]}}`},
		{"[\n  {\"error\": {\"message\": \"in a list\"}}\n]", "in a list"},
		{"{\n  \"status\": 404,\n  \"title\": \"Not Found\"\n}", "Not Found"},
	} {
		f := Classify(&transport.HTTPError{StatusCode: http.StatusNotFound, Body: []byte(c.body)})
		if f.Message != c.want {
			t.Errorf("body %q: message %q; want %q", c.body, f.Message, c.want)
		}
	}
}
