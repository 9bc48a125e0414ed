package responsestest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	gosse "github.com/tmaxmax/go-sse"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// event is a parsed SSE event.
type event struct {
	Type string
	Data string
}

// post sends a JSON-ish body to url with header key/value pairs.
func post(ctx context.Context, c *http.Client, url, body string, headerKV ...string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headerKV); i += 2 {
		req.Header.Add(headerKV[i], headerKV[i+1])
	}
	return c.Do(req)
}

// readEvents parses r with go-sse until EOF or the first error.
func readEvents(r io.Reader) ([]event, error) {
	var got []event
	for ev, err := range gosse.Read(r, nil) {
		if err != nil {
			return got, err
		}
		got = append(got, event{Type: ev.Type, Data: ev.Data})
	}
	return got, nil
}

func types(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// transports lists the two ways to reach a server.
func transports() []struct {
	name   string
	client func(*rt.Server) *http.Client
} {
	return []struct {
		name   string
		client func(*rt.Server) *http.Client
	}{
		{"loopback", (*rt.Server).Client},
		{"pipe", (*rt.Server).PipeClient},
	}
}

// stream runs one Stream attempt over every transport and hands the
// response to check.
func stream(t *testing.T, a rt.Attempt, check func(t *testing.T, srv *rt.Server, resp *http.Response)) {
	t.Helper()
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{a})
			resp, err := post(t.Context(), tr.client(srv), srv.URL+"/responses", `{}`)
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			defer resp.Body.Close()
			check(t, srv, resp)
		})
	}
}

func TestStatus(t *testing.T) {
	type result struct {
		Code   int
		Header http.Header
		Body   string
	}
	tests := []struct {
		name    string
		attempt rt.Attempt
		keys    []string // response headers to compare
		want    result
	}{
		{
			name:    "429 with Retry-After",
			attempt: rt.Status(429, "Retry-After", "2"),
			keys:    []string{"Retry-After", "Content-Type"},
			want: result{429, http.Header{"Retry-After": {"2"}, "Content-Type": {"application/json"}},
				`{"error":{"message":"Too Many Requests"}}`},
		},
		{
			name:    "repeated header",
			attempt: rt.Status(426, "X-A", "1", "x-a", "2"),
			keys:    []string{"X-A"},
			want: result{426, http.Header{"X-A": {"1", "2"}},
				`{"error":{"message":"Upgrade Required"}}`},
		},
		{
			name:    "no body allowed",
			attempt: rt.Status(204),
			want:    result{Code: 204, Header: http.Header{}},
		},
		{
			name:    "custom body and content type",
			attempt: rt.StatusBody(502, "<html>bad gateway</html>", "Content-Type", "text/html"),
			keys:    []string{"Content-Type"},
			want:    result{502, http.Header{"Content-Type": {"text/html"}}, "<html>bad gateway</html>"},
		},
		{
			name: "OpenAI error",
			attempt: rt.Error(401, "invalid_request_error", "invalid_api_key", "Incorrect API key",
				"X-Request-Id", "req_1"),
			keys: []string{"X-Request-Id"},
			want: result{401, http.Header{"X-Request-Id": {"req_1"}},
				`{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		},
		{
			name:    "error without type or code",
			attempt: rt.Error(500, "", "", "boom"),
			want: result{500, http.Header{},
				`{"error":{"message":"boom","type":null,"param":null,"code":null}}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{tt.attempt})
			resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading body: %v", err)
			}
			got := result{Code: resp.StatusCode, Header: http.Header{}, Body: string(body)}
			for _, k := range tt.keys {
				got.Header[k] = resp.Header.Values(k)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStepWire pins the exact bytes each step writes.
func TestStepWire(t *testing.T) {
	tests := []struct {
		name string
		step rt.Step
		want string
	}{
		{"Created", rt.Created("r1"),
			"event: response.created\n" +
				`data: {"type":"response.created","response":{"id":"r1","status":"in_progress"}}` + "\n\n"},
		{"InProgress", rt.InProgress("r1"),
			"event: response.in_progress\n" +
				`data: {"type":"response.in_progress","response":{"id":"r1","status":"in_progress"}}` + "\n\n"},
		{"OutputItemAdded", rt.OutputItemAdded(map[string]any{"type": "reasoning", "id": "rs1"}),
			"event: response.output_item.added\n" +
				`data: {"type":"response.output_item.added","item":{"id":"rs1","type":"reasoning"},"output_index":0}` + "\n\n"},
		{"TextDelta", rt.TextDelta("m1", "hi <b>"),
			"event: response.output_text.delta\n" +
				`data: {"type":"response.output_text.delta","content_index":0,"delta":"hi <b>","item_id":"m1","output_index":0}` + "\n\n"},
		{"MessageDone", rt.MessageDone("m1", "hi"),
			"event: response.output_item.done\n" +
				`data: {"type":"response.output_item.done","item":{"content":[{"annotations":[],"text":"hi","type":"output_text"}],"id":"m1","role":"assistant","status":"completed","type":"message"},"output_index":0}` + "\n\n"},
		{"FunctionCallDone", rt.FunctionCallDone("fc1", "call_1", "shell", `{"cmd":["ls"]}`),
			"event: response.output_item.done\n" +
				`data: {"type":"response.output_item.done","item":{"arguments":"{\"cmd\":[\"ls\"]}","call_id":"call_1","id":"fc1","name":"shell","status":"completed","type":"function_call"},"output_index":0}` + "\n\n"},
		{"ReasoningSummaryDelta", rt.ReasoningSummaryDelta("rs1", "think"),
			"event: response.reasoning_summary_text.delta\n" +
				`data: {"type":"response.reasoning_summary_text.delta","delta":"think","item_id":"rs1","output_index":0,"summary_index":0}` + "\n\n"},
		{"Completed", rt.Completed("r1"),
			"event: response.completed\n" +
				`data: {"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}` + "\n\n"},
		{"CompletedUsage", rt.CompletedUsage("r1", 100, 40, 20, 7),
			"event: response.completed\n" +
				`data: {"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":7},"total_tokens":120}}}` + "\n\n"},
		{"Failed", rt.Failed("r1", "rate_limit_exceeded", "try again in 1.5s"),
			"event: response.failed\n" +
				`data: {"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"try again in 1.5s"},"id":"r1","status":"failed"}}` + "\n\n"},
		{"Incomplete", rt.Incomplete("r1", "max_output_tokens"),
			"event: response.incomplete\n" +
				`data: {"type":"response.incomplete","response":{"id":"r1","incomplete_details":{"reason":"max_output_tokens"},"status":"incomplete"}}` + "\n\n"},
		{"Event type wins", rt.Event("x.y", map[string]any{"type": "ignored", "a": 1}),
			"event: x.y\n" + `data: {"type":"x.y","a":1}` + "\n\n"},
		{"Event without fields", rt.Event("error", nil),
			"event: error\n" + `data: {"type":"error"}` + "\n\n"},
		{"Comment", rt.Comment("keep-alive"), ": keep-alive\n\n"},
		{"Raw", rt.Raw("data: {broken\r\n\r\n"), "data: {broken\r\n\r\n"},
		{"Barrier writes nothing", rt.Barrier("b"), ""},
		{"zero Step writes nothing", rt.Step{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Stream(tt.step)})
			resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading body: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("bytes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamParses(t *testing.T) {
	a := rt.StreamWithHeaders([]string{"X-Request-Id", "req_7"},
		rt.Created("r1"),
		rt.InProgress("r1"),
		rt.Comment("ping"),
		rt.OutputItemAdded(map[string]any{"type": "reasoning", "id": "rs1"}),
		rt.ReasoningSummaryDelta("rs1", "plan"),
		rt.TextDelta("m1", "hel"),
		rt.TextDelta("m1", "lo"),
		rt.MessageDone("m1", "hello"),
		rt.FunctionCallDone("fc1", "call_1", "shell", `{}`),
		rt.Event("response.metadata", map[string]any{"metadata": map[string]any{}}),
		rt.Completed("r1"),
	)
	want := []string{
		"response.created",
		"response.in_progress",
		"response.output_item.added",
		"response.reasoning_summary_text.delta",
		"response.output_text.delta",
		"response.output_text.delta",
		"response.output_item.done",
		"response.output_item.done",
		"response.metadata",
		"response.completed",
	}
	stream(t, a, func(t *testing.T, _ *rt.Server, resp *http.Response) {
		head := []string{resp.Header.Get("Content-Type"), resp.Header.Get("X-Request-Id")}
		if diff := cmp.Diff([]string{"text/event-stream", "req_7"}, head); diff != "" {
			t.Errorf("headers mismatch (-want +got):\n%s", diff)
		}
		evs, err := readEvents(resp.Body)
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		if diff := cmp.Diff(want, types(evs)); diff != "" {
			t.Errorf("event types mismatch (-want +got):\n%s", diff)
		}
		for _, e := range evs {
			var data struct{ Type string }
			if err := json.Unmarshal([]byte(e.Data), &data); err != nil || data.Type != e.Type {
				t.Errorf("event %s: data %s has type %q (err %v)", e.Type, e.Data, data.Type, err)
			}
		}
	})
}

func TestReply(t *testing.T) {
	stream(t, rt.Reply("r1", "m1", "hello big world"), func(t *testing.T, _ *rt.Server, resp *http.Response) {
		evs, err := readEvents(resp.Body)
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		var deltas []string
		for _, e := range evs {
			if e.Type != "response.output_text.delta" {
				continue
			}
			var d struct{ Delta string }
			if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
				t.Fatal(err)
			}
			deltas = append(deltas, d.Delta)
		}
		if diff := cmp.Diff([]string{"hello ", "big ", "world"}, deltas); diff != "" {
			t.Errorf("deltas mismatch (-want +got):\n%s", diff)
		}
		wantTypes := []string{"response.created", "response.output_item.added",
			"response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
			"response.output_item.done", "response.completed"}
		if diff := cmp.Diff(wantTypes, types(evs)); diff != "" {
			t.Errorf("event types mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestDrop(t *testing.T) {
	a := rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "hel"), rt.Drop(), rt.Completed("r1"))
	stream(t, a, func(t *testing.T, _ *rt.Server, resp *http.Response) {
		evs, err := readEvents(resp.Body)
		if err == nil {
			t.Fatal("reading a dropped stream: got clean EOF, want an error")
		}
		t.Logf("read error (want unexpected EOF or reset): %v", err)
		want := []string{"response.created", "response.output_text.delta"}
		if diff := cmp.Diff(want, types(evs)); diff != "" {
			t.Errorf("events before the drop (-want +got):\n%s", diff)
		}
	})
}

func TestEnd(t *testing.T) {
	a := rt.Stream(rt.Created("r1"), rt.End(), rt.Completed("r1"))
	stream(t, a, func(t *testing.T, _ *rt.Server, resp *http.Response) {
		evs, err := readEvents(resp.Body)
		if err != nil {
			t.Fatalf("reading events: got %v, want clean EOF", err)
		}
		if diff := cmp.Diff([]string{"response.created"}, types(evs)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestStallRelease(t *testing.T) {
	a := rt.Stream(rt.Created("r1"), rt.Barrier("stalled"), rt.Stall(), rt.Completed("r1"))
	stream(t, a, func(t *testing.T, srv *rt.Server, resp *http.Response) {
		// Reached proves the stream got to the Stall; TestSynctestStall
		// proves it stays parked there until Release.
		<-srv.Reached("stalled")
		srv.Release()
		evs, err := readEvents(resp.Body)
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		want := []string{"response.created", "response.completed"}
		if diff := cmp.Diff(want, types(evs)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestUnexpectedRequest(t *testing.T) {
	fake := &fakeTB{TB: t}
	srv := rt.NewServer(fake, rt.Script{rt.Status(200)})
	c := srv.Client()

	var got []string
	for range 2 {
		resp, err := post(t.Context(), c, srv.URL+"/responses", `{}`)
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = append(got, strconv.Itoa(resp.StatusCode)+" "+strings.TrimSpace(string(body)))
	}
	resp, err := c.Get(srv.URL + "/files")
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	resp.Body.Close()
	got = append(got, strconv.Itoa(resp.StatusCode))

	want := []string{
		`200 {"error":{"message":"OK"}}`,
		"500 responsestest: unexpected request #2 (script has 1 attempts)",
		"404",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses mismatch (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		"responsestest: unexpected request #2 (script has 1 attempts)",
		"responsestest: no route for GET /v1/files",
	}
	if diff := cmp.Diff(wantErrs, fake.errors()); diff != "" {
		t.Errorf("Errorf calls mismatch (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want 2 (wrong routes are not attempts)", n)
	}
}

// fakeTB records Errorf instead of failing; everything else goes to the
// embedded real test.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.errs)
}

func TestRequests(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Reply("r1", "m1", "ok")})
	c := srv.Client()
	for _, r := range []struct{ url, body string }{
		{srv.URL + "/responses?api-version=2025-01-01", `{"model":"gpt-5","stream":true}`},
		{srv.URL + "/responses", `not json`},
	} {
		resp, err := post(t.Context(), c, r.url, r.body, "Authorization", "Bearer sk-test")
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	type summary struct {
		Method, Path, Query, Auth, Body string
		JSON                            map[string]any
		Attempt                         int
	}
	summarize := func(reqs []rt.Request) []summary {
		out := make([]summary, len(reqs))
		for i, r := range reqs {
			out[i] = summary{r.Method, r.Path, r.Query.Encode(), r.Header.Get("Authorization"),
				string(r.Body), r.JSON, r.Attempt}
		}
		return out
	}
	want := []summary{
		{"POST", "/v1/responses", "api-version=2025-01-01", "Bearer sk-test",
			`{"model":"gpt-5","stream":true}`, map[string]any{"model": "gpt-5", "stream": true}, 0},
		{"POST", "/v1/responses", "", "Bearer sk-test", "not json", nil, 1},
	}
	got := srv.Requests()
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}

	// Requests returns copies: scribbling on them changes nothing.
	got[0].JSON["model"] = "changed"
	got[0].Header.Set("Authorization", "changed")
	got[0].Body[0] = 'X'
	if diff := cmp.Diff(want, summarize(srv.Requests())); diff != "" {
		t.Errorf("requests changed through a copy (-want +got):\n%s", diff)
	}
}

func TestPaths(t *testing.T) {
	tests := []struct{ name, path string }{
		{"bare", "/responses"},
		{"v1", "/v1/responses"},
		{"azure style with query", "/openai/deployments/gpt/responses?api-version=preview"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Status(201)})
			base := strings.TrimSuffix(srv.URL, "/v1")
			resp, err := post(t.Context(), srv.Client(), base+tt.path, `{}`)
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 201 {
				t.Errorf("status = %d, want 201", resp.StatusCode)
			}
		})
	}
}

func TestConcurrentAttemptsUsedOnce(t *testing.T) {
	const n = 10
	var script rt.Script
	for i := range n {
		script = append(script, rt.Status(200, "X-Attempt", strconv.Itoa(i)))
	}
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, script)
			c := tr.client(srv)
			got := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					resp, err := post(t.Context(), c, srv.URL+"/responses", `{"i":`+strconv.Itoa(i)+`}`)
					if err != nil {
						t.Errorf("post %d: %v", i, err)
						return
					}
					resp.Body.Close()
					got[i] = resp.Header.Get("X-Attempt")
				})
			}
			wg.Wait()
			slices.SortFunc(got, func(a, b string) int {
				x, _ := strconv.Atoi(a)
				y, _ := strconv.Atoi(b)
				return x - y
			})
			want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attempts served (-want +got):\n%s", diff)
			}
			// Each recorded request names the attempt it got, and the
			// attempt matches the header it was answered with.
			var attempts []int
			for _, r := range srv.Requests() {
				attempts = append(attempts, r.Attempt)
			}
			if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, attempts); diff != "" {
				t.Errorf("recorded attempts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBarrier(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("mid"), rt.Completed("r1")),
	})
	mid := srv.Reached("mid")
	select {
	case <-mid:
		t.Fatal("Reached(mid) closed before any request")
	default:
	}
	resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	if _, err := readEvents(resp.Body); err != nil {
		t.Fatalf("reading events: %v", err)
	}
	<-mid                // closed by the stream
	<-srv.Reached("mid") // stays closed
	select {
	case <-srv.Reached("never"):
		t.Error("Reached(never) closed without a matching Barrier")
	default:
	}
}

func TestAppend(t *testing.T) {
	srv := rt.NewServer(t, nil)
	srv.Append(rt.Status(418), rt.Status(202))
	var got []int
	for range 2 {
		resp, err := post(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{418, 202}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestHangAfterReleaseDrops(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Hang(), rt.Status(200)})
			srv.Release() // a latch: later Hangs and Stalls do not block
			resp, err := post(t.Context(), tr.client(srv), srv.URL+"/responses", `{}`)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("post to a released Hang: got status %d, want a connection error", resp.StatusCode)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want 1 (POST is not retried)", n)
			}
		})
	}
}

func TestCloseWhileStalled(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), rt.Barrier("stalled"), rt.Stall(), rt.Completed("r1")),
			})
			resp, err := post(t.Context(), tr.client(srv), srv.URL+"/responses", `{}`)
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			defer resp.Body.Close()
			<-srv.Reached("stalled")
			srv.Close() // must not wait for the client; drops the stream
			evs, err := readEvents(resp.Body)
			if err == nil {
				t.Error("reading a stream closed mid-stall: got clean EOF, want an error")
			}
			if diff := cmp.Diff([]string{"response.created"}, types(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}

			resp2, err := post(t.Context(), tr.client(srv), srv.URL+"/responses", `{}`)
			if err == nil {
				resp2.Body.Close()
				t.Errorf("request after Close: got status %d, want a dial error", resp2.StatusCode)
			}
		})
	}
}

// TestModelsRoute: GET .../models lists a model, or answers 401 to a
// request without Options.APIKey; it is recorded apart from the script.
func TestModelsRoute(t *testing.T) {
	srv := rt.New(rt.Script{}, rt.Options{APIKey: "sk-test-canary-0000", OnUnexpected: func(m string) { t.Errorf("%s", m) }})
	srv.Start()
	defer srv.Close()
	for _, tt := range []struct {
		key  string
		want int
	}{{"sk-test-canary-0000", 200}, {"sk-test-wrong-0000", 401}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/models", nil)
		req.Header.Set("Authorization", "Bearer "+tt.key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("key %s: status %d, want %d", tt.key, resp.StatusCode, tt.want)
		}
	}
	if n, r := len(srv.ModelsRequests()), len(srv.Requests()); n != 2 || r != 0 {
		t.Errorf("%d models requests and %d script requests, want 2 and 0", n, r)
	}
}
