// Command proxyload measures the throughput of a Responses endpoint under
// keep-alive clients: each of -clients goroutines sends POST /responses
// (a streamed answer, read to its end) over its own kept-alive connection,
// one after another, for -duration; it prints the completed requests per
// second and the bytes read. Run it against fakeresponses directly and
// through `agent proxy --upstream` to compare (BENCHMARKS.md, issue 44;
// `bench/run.sh --proxy` runs the whole comparison).
//
// With -bare it sends nothing: it serves a bare relay on that address,
// net/http/httputil's ReverseProxy to -upstream flushing every write (no
// retries, no log, no classification), the floor of any Go relay the
// proxy's figures are set beside.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "the endpoint, e.g. http://127.0.0.1:8080/v1/responses")
	clients := flag.Int("clients", 50, "concurrent keep-alive clients")
	duration := flag.Duration("duration", 5*time.Second, "how long to send")
	bare := flag.String("bare", "", "serve a bare reverse proxy to -upstream on this address instead of sending")
	upstream := flag.String("upstream", "", "with -bare: the upstream's base URL, e.g. http://127.0.0.1:8080")
	flag.Parse()
	if *bare != "" {
		if err := serveBare(*bare, *upstream); err != nil {
			fmt.Fprintln(os.Stderr, "proxyload:", err)
			os.Exit(1)
		}
		return
	}
	if *url == "" {
		fmt.Fprintln(os.Stderr, "proxyload: -url is required")
		os.Exit(2)
	}
	body := []byte(`{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`)
	tr := &http.Transport{MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients, DisableCompression: true}
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var done, failed, read atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range *clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequest(http.MethodPost, *url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer k")
				res, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					failed.Add(1)
					continue
				}
				read.Add(n)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	fmt.Printf("%.0f req/s %d requests %d failed %.1f MB/s clients %d\n", float64(done.Load())/el, done.Load(), failed.Load(), float64(read.Load())/el/1e6, *clients)
}

// serveBare serves httputil's ReverseProxy to upstream on addr until killed.
func serveBare(addr, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-upstream %q is not a URL", upstream)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // every write flushed, as agent proxy relays a stream
	rp.Transport = &http.Transport{MaxIdleConns: 1000, MaxIdleConnsPerHost: 1000, DisableCompression: true}
	return http.ListenAndServe(addr, rp)
}
