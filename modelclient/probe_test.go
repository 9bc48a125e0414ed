package modelclient

import (
	"net/http"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestProbeResponses: where GET /models is not served (404, 405), the
// probe's invalid request tells a credential the Responses endpoint took
// (400, or 422 from a FastAPI server) from one it refused (401, 403), and
// names any other answer; it carries the credential and runs no model.
func TestProbeResponses(t *testing.T) {
	for _, models := range []int{http.StatusNotFound, http.StatusMethodNotAllowed} {
		for _, c := range []struct {
			answer             int
			accepted, rejected bool
			status             string
		}{
			{400, true, false, "400 Bad Request"},
			{422, true, false, "422 Unprocessable Entity"},
			{401, false, true, "401 Unauthorized"},
			{403, false, true, "403 Forbidden"},
			{500, false, false, "500 Internal Server Error"},
		} {
			srv := rt.New(rt.Script{rt.Status(c.answer)}, rt.Options{ModelsStatus: models, OnUnexpected: func(m string) { t.Error(m) }})
			srv.Start()
			resp, err := http.Get(srv.URL + "/models")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != models {
				t.Fatalf("GET /models = %d; want %d", resp.StatusCode, models)
			}
			h := http.Header{"Authorization": {"Bearer sk-probe"}, "X-Org": {"o"}}
			p, err := ProbeResponses(t.Context(), http.DefaultClient, srv.URL+"/", h)
			srv.Close()
			if err != nil {
				t.Fatalf("ProbeResponses: %v", err)
			}
			if p.Accepted != c.accepted || p.Rejected != c.rejected || p.Status != c.status || p.URL != srv.URL+"/responses" {
				t.Errorf("/models %d, /responses %d: probe = %+v; want accepted %v, rejected %v, %q", models, c.answer, p, c.accepted, c.rejected, c.status)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-probe" || reqs[0].Header.Get("X-Org") != "o" || string(reqs[0].Body) != probeBody {
				t.Errorf("the probe sent %d requests (%+v); want one POST with the credential and the invalid body", len(reqs), reqs)
			}
		}
	}
}

// TestProbeUnreachable: no answer is an error, not a verdict.
func TestProbeUnreachable(t *testing.T) {
	srv := rt.New(nil, rt.Options{})
	srv.Start()
	url := srv.URL
	srv.Close()
	if p, err := ProbeResponses(t.Context(), http.DefaultClient, url, nil); err == nil || p.Accepted || p.Rejected {
		t.Errorf("probe of a closed server = %+v, %v; want an error", p, err)
	}
}
