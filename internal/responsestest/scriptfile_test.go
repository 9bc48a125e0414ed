package responsestest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

func TestParseScriptDrivesServer(t *testing.T) {
	script, err := rt.ParseScript([]byte(`[
		{"status": 429, "headers": {"Retry-After": "2"}},
		{"events": [{"type": "response.created", "response": {"id": "r1"}}, {"drop": true}]},
		{"reply": "hello there"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := rt.NewServer(t, script)
	post := func() (*http.Response, string, error) {
		resp, err := srv.Client().Post(srv.URL+"/responses", "application/json", strings.NewReader("{}"))
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}
	resp, _, err := post()
	if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("attempt 1 = %v, %v; want 429 with Retry-After 2", resp, err)
	}
	if _, body, err := post(); err == nil || !strings.Contains(body, `"id":"r1"`) {
		t.Errorf("attempt 2: body %q, err %v; want response.created then a dropped connection", body, err)
	}
	_, body, err := post()
	if err != nil || !strings.Contains(body, `"text":"hello there"`) || !strings.Contains(body, "event: response.completed") {
		t.Errorf("attempt 3 = %q, %v; want the reply", body, err)
	}
}

func TestParseScriptErrorsNameTheAttempt(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                              "JSON array",
		`[{"reply": "x"}, {}]`:            "attempt 2",
		`[{"events": [{"drop": false}]}]`: "attempt 1: event 1",
		`[{"status": "x"}]`:               `"status"`,
	} {
		_, err := rt.ParseScript([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScript(%s) = %v; want an error naming %q", in, err, want)
		}
	}
}
