package proxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/proxy"
)

// BenchmarkStreamLatency measures how long a streamed byte takes to go
// from the upstream's write to the client's read, through the proxy and,
// as the baseline, directly. Each operation is one streamed request of
// chunks events; the upstream stamps each event with the time it writes
// it and waits for the client to read it before writing the next, so
// nothing coalesces. first-byte-µs is the mean latency of the first
// event (the commit decision included), chunk-µs that of the others;
// the -p99 metrics are their 99th percentiles.
//
//	go test -run '^$' -bench StreamLatency -benchtime 2000x ./proxy
func BenchmarkStreamLatency(b *testing.B) {
	const chunks = 8
	acks := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for i := range chunks {
			fmt.Fprintf(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"x\",\"t\":%d}\n\n", time.Now().UnixNano())
			if rc.Flush() != nil {
				return
			}
			if i < chunks-1 {
				select {
				case <-acks:
				case <-r.Context().Done():
					return
				}
			}
		}
	}))
	defer up.Close()

	run := func(b *testing.B, base string, client *http.Client) {
		var first, rest []time.Duration
		for b.Loop() {
			resp, err := postJSON(b.Context(), client, base+"/responses", `{"stream":true}`)
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			for i := range chunks {
				stamp, err := readStamp(br)
				if err != nil {
					b.Fatal(err)
				}
				if d := time.Since(time.Unix(0, stamp)); i == 0 {
					first = append(first, d)
				} else {
					rest = append(rest, d)
				}
				if i < chunks-1 {
					acks <- struct{}{}
				}
			}
			resp.Body.Close()
		}
		b.ReportMetric(micros(mean(first)), "first-byte-µs")
		b.ReportMetric(micros(quantile(first, 0.99)), "first-byte-p99-µs")
		b.ReportMetric(micros(mean(rest)), "chunk-µs")
		b.ReportMetric(micros(quantile(rest, 0.99)), "chunk-p99-µs")
	}

	b.Run("direct", func(b *testing.B) {
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		run(b, up.URL+"/v1", client)
	})
	b.Run("proxy", func(b *testing.B) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		p, err := proxy.New(proxy.Options{Upstream: mustURL(b, up.URL+"/v1"), Transport: tr})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(p)
		defer srv.Close()
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		run(b, srv.URL+"/v1", client)
	})
}

// readStamp reads one event's data line and returns its "t" field.
func readStamp(br *bufio.Reader) (int64, error) {
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var v struct{ T int64 }
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				return 0, err
			}
			return v.T, nil
		}
	}
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
