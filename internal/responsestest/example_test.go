package responsestest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	gosse "github.com/tmaxmax/go-sse"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// A client that retries sees a rate limit, a stream that dies mid-way and
// finally a good reply. In a test, use rt.NewServer(t, script) instead of
// New, Start and Close.
func Example() {
	srv := rt.New(rt.Script{
		rt.Status(http.StatusTooManyRequests, "Retry-After", "2"),
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "hel"), rt.Drop()),
		rt.Reply("r2", "m1", "hello world"),
	}, rt.Options{})
	srv.Start()
	defer srv.Close()

	client := srv.Client()
	for attempt := 1; attempt <= 3; attempt++ {
		resp, err := client.Post(srv.URL+"/responses", "application/json",
			strings.NewReader(`{"model":"gpt-5","stream":true}`))
		if err != nil {
			fmt.Println("post:", err)
			return
		}
		if resp.StatusCode != http.StatusOK {
			fmt.Printf("attempt %d: %d, Retry-After %s\n", attempt, resp.StatusCode, resp.Header.Get("Retry-After"))
			resp.Body.Close()
			continue
		}
		var text strings.Builder
		completed := false
		for ev, err := range gosse.Read(resp.Body, nil) {
			if err != nil {
				fmt.Printf("attempt %d: stream broke after %q\n", attempt, text.String())
				break
			}
			var data struct{ Delta string }
			_ = json.Unmarshal([]byte(ev.Data), &data)
			switch ev.Type {
			case "response.output_text.delta":
				text.WriteString(data.Delta)
			case "response.completed":
				completed = true
			}
		}
		resp.Body.Close()
		if completed {
			fmt.Printf("attempt %d: %q\n", attempt, text.String())
		}
	}
	fmt.Println("requests:", len(srv.Requests()))
	// Output:
	// attempt 1: 429, Retry-After 2
	// attempt 2: stream broke after "hel"
	// attempt 3: "hello world"
	// requests: 3
}
