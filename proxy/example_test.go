package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// A client behind the proxy sees one clean answer although the upstream
// was at capacity the first time. In a program, run it with Serve on a
// loopback listener instead of httptest, and leave Sleep and Rand unset.
func ExampleNew() {
	upstream := rt.New(rt.Script{
		rt.Error(503, "server_error", "", "Selected model is at capacity."),
		rt.Reply("r1", "m1", "hello"),
	}, rt.Options{})
	upstream.Start()
	defer upstream.Close()

	base, _ := url.Parse(upstream.URL) // an API root, ending in /v1
	p, err := proxy.New(proxy.Options{
		Upstream: base,
		Sleep: func(ctx context.Context, d time.Duration) error {
			fmt.Println("waiting", d)
			return ctx.Err()
		},
		Rand: func() float64 { return 0 },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(p)
	defer srv.Close()

	resp, err := postJSON(context.Background(), srv.Client(), srv.URL+"/v1/responses", `{"model":"m","stream":true}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get(proxy.HeaderAttempts), "attempts")
	fmt.Println(strings.Contains(string(body), "response.completed"))
	// Output:
	// waiting 1s
	// 200 2 attempts
	// true
}
