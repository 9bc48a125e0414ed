package demo_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/agentcli/agent/internal/demo"
)

func post(t *testing.T, url, body string) (*http.Response, []gosse.Event, error) {
	t.Helper()
	resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		io.Copy(io.Discard, resp.Body)
		return resp, nil, nil
	}
	var evs []gosse.Event
	var rerr error
	for ev, err := range gosse.Read(resp.Body, nil) {
		if err != nil {
			rerr = err
			break
		}
		evs = append(evs, ev)
	}
	return resp, evs, rerr
}

// TestScriptedFaults: every turn fails with a 500, then a cut stream, then
// answers; the answer quotes the prompt.
func TestScriptedFaults(t *testing.T) {
	srv := httptest.NewServer(demo.New(demo.Options{Faults: true}))
	defer srv.Close()
	body := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello demo"}]}]}`

	resp, _, _ := post(t, srv.URL, body)
	if resp.StatusCode != 500 {
		t.Errorf("attempt 1 status = %d; want 500", resp.StatusCode)
	}
	_, evs, err := post(t, srv.URL, body)
	if err == nil {
		t.Errorf("attempt 2 ended cleanly; want a cut stream")
	}
	for _, e := range evs {
		if e.Type == "response.completed" {
			t.Error("attempt 2 completed; want a cut before response.completed")
		}
	}
	_, evs, err = post(t, srv.URL, body)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != "response.completed" {
		t.Fatalf("attempt 3: %v, %d events", err, len(evs))
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Type == "response.output_text.delta" {
			var d struct{ Delta string }
			if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
				t.Fatal(err)
			}
			text.WriteString(d.Delta)
		}
	}
	if !strings.Contains(text.String(), `hello demo`) {
		t.Errorf("answer does not quote the prompt: %s", text.String())
	}
}

func TestRejectsOtherRoutes(t *testing.T) {
	srv := httptest.NewServer(demo.New(demo.Options{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/responses")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET status = %d; want 404", resp.StatusCode)
	}
}
