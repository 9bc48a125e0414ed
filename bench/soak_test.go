package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
)

// soakTurns is how many turns each transport's soak runs: 100 by default
// (what CI runs, with or without -short), AGENT_SOAK=N for a long soak,
// for example AGENT_SOAK=1000.
func soakTurns(t *testing.T) int {
	v := os.Getenv("AGENT_SOAK")
	if v == "" {
		return 100
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("AGENT_SOAK=%q: want a positive number of turns", v)
	}
	return n
}

// fault kinds the soak injects before a turn's good reply.
const (
	faultStatus5xx = iota // HTTP 500/502/503 (an error frame over WebSocket)
	faultRateLimit        // 429 with Retry-After: 1
	faultDrop             // partial text, then the connection drops
	faultFailed           // partial text, then response.failed server_error
	faultKinds
)

// soakTurn is what the script serves for one turn and what must come out.
type soakTurn struct {
	faults  []int
	partial int // faults that streamed text before failing
	want    string
}

// soakScript builds n turns from a fixed seed: each turn gets 0-2 faults
// (within every default retry budget) and then its reply.
func soakScript(n int) (rt.Script, []soakTurn) {
	r := rand.New(rand.NewPCG(2024, 11))
	var script rt.Script
	turns := make([]soakTurn, n)
	for i := range turns {
		tt := &turns[i]
		tt.want = fmt.Sprintf("answer %d: the build is green and %d tests pass", i, r.IntN(1000))
		resp, msg := fmt.Sprintf("resp_%d", i), fmt.Sprintf("msg_%d", i)
		for range r.IntN(3) {
			k := r.IntN(faultKinds)
			tt.faults = append(tt.faults, k)
			switch k {
			case faultStatus5xx:
				script = append(script, rt.Status([]int{500, 502, 503}[r.IntN(3)]))
			case faultRateLimit:
				script = append(script, rt.Status(429, "Retry-After", "1"))
			case faultDrop:
				tt.partial++
				script = append(script, rt.Stream(rt.Created(resp), rt.TextDelta(msg, "FRAGMENT "), rt.Drop()))
			case faultFailed:
				tt.partial++
				script = append(script, rt.Stream(rt.Created(resp), rt.TextDelta(msg, "FRAGMENT "),
					rt.Failed(resp, "server_error", "The server had an error while processing your request.")))
			}
		}
		script = append(script, rt.Reply(resp, msg, tt.want))
	}
	return script, turns
}

// TestSoak runs many turns of one session against a server injecting
// faults, over SSE and over WebSocket: every answer comes out exactly once
// and intact, every fault costs exactly one retry, no request is lost or
// repeated, goroutines return to their baseline and memory stays bounded.
func TestSoak(t *testing.T) {
	n := soakTurns(t)
	for _, mode := range []string{"sse", "ws"} {
		t.Run(mode, func(t *testing.T) { soak(t, mode, n) })
	}
}

func soak(t *testing.T, mode string, n int) {
	goroutines0 := runtime.NumGoroutine()
	heap0, rss0 := memory()
	script, turns := soakScript(n)
	start := time.Now()

	srv := rt.New(script, rt.Options{OnUnexpected: func(msg string) { t.Errorf("fake server: %s", msg) }})
	var lastPOST atomic.Pointer[[]byte]
	hs := httptest.NewServer(recordLastPOST(srv.Handler(), &lastPOST))
	// A client of its own, not hs.Client(): that one's dialer holds the
	// server, which would keep its recorded requests alive.
	tr := &http.Transport{}
	var sleeps atomic.Int64
	client := soakClient(hs.URL+"/v1", mode, &http.Client{Transport: tr}, &sleeps)
	sess := session.New(session.Options{Client: client})
	for i, tt := range turns {
		soakTurnOnce(t, sess, i, tt, &sleeps)
	}
	elapsed := time.Since(start)
	heapAll, rssAll := memory()
	if mode == "sse" {
		checkHistory(t, *lastPOST.Load(), turns)
	}

	// Exactly len(script) attempts were consumed if a probe appended after
	// them gets the probe's answer (one more would have failed the test
	// through OnUnexpected).
	srv.Append(rt.Status(http.StatusTeapot))
	if resp, err := hs.Client().Post(hs.URL+"/v1/responses", "application/json", strings.NewReader("{}")); err != nil {
		t.Errorf("probe: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot {
			t.Errorf("probe got %d: the client consumed fewer attempts than the script has (%d)", resp.StatusCode, len(script))
		}
	}

	_ = client.Close()
	tr.CloseIdleConnections()
	srv.Close()
	hs.Close()
	srv, hs, lastPOST = nil, nil, atomic.Pointer[[]byte]{}
	goroutines1 := settleGoroutines(goroutines0)
	// The fake server, its connections and recorded requests are garbage
	// now; what remains is held by the session (history) and its client.
	heapSess, _ := memory()
	runtime.KeepAlive(sess)
	if goroutines1 > goroutines0+2 {
		t.Errorf("goroutines: %d before, %d after cleanup; want at most %d", goroutines0, goroutines1, goroutines0+2)
	}
	// The session keeps its history (two items a turn, well under 1 KiB
	// each here); anything much beyond that is a leak.
	perTurn := (float64(heapSess) - float64(heap0)) / float64(n)
	if perTurn > 16<<10 {
		t.Errorf("the session holds %.0f B per turn after %d turns; want at most 16 KiB", perTurn, n)
	}
	var kinds [faultKinds]int
	for _, tt := range turns {
		for _, k := range tt.faults {
			kinds[k]++
		}
	}
	t.Logf("soak %s: %d turns, %d faults injected (5xx %d, 429 %d, drop %d, response.failed %d), "+
		"%d attempts served, %v (%.2f ms/turn); goroutines %d -> %d; live heap %s before, %s after the turns "+
		"with the fake server's recorded requests, %s held by the session (%.0f B/turn); RSS %s -> %s, process peak %s",
		mode, n, len(script)-n, kinds[faultStatus5xx], kinds[faultRateLimit], kinds[faultDrop], kinds[faultFailed],
		len(script), elapsed.Round(time.Millisecond), float64(elapsed.Microseconds())/1e3/float64(n),
		goroutines0, goroutines1, mib(heap0), mib(heapAll), mib(heapSess), perTurn, mib(rss0), mib(rssAll), mib(peakRSS()))
}

// soakClient is a model client for the fake server at baseURL whose
// retries sleep for no time, counting the sleeps.
func soakClient(baseURL, mode string, hc *http.Client, sleeps *atomic.Int64) *modelclient.Client {
	p := provider.Custom("soak")
	p.BaseURL = baseURL
	p.SupportsWebSockets = mode == "ws"
	return modelclient.New(modelclient.Options{
		Provider:   p,
		SessionID:  "soak-" + mode,
		HTTPClient: hc,
		Sleep: func(ctx context.Context, _ time.Duration) error {
			sleeps.Add(1)
			return ctx.Err()
		},
		Rand: func() float64 { return 0.5 },
	})
}

// soakTurnOnce runs turn i and checks what came out: one answer, intact;
// one retry and one sleep per fault; one retraction per partial attempt;
// no fallback warning.
func soakTurnOnce(t *testing.T, sess *session.Session, i int, tt soakTurn, sleeps *atomic.Int64) {
	t.Helper()
	var done []string
	retracted, retries, warnings := 0, 0, 0
	before := sleeps.Load()
	err := sess.Turn(context.Background(), fmt.Sprintf("question %d", i), func(ev session.Event) {
		switch ev := ev.(type) {
		case session.MessageDone:
			done = append(done, ev.Text)
		case session.Retracted:
			retracted++
		case session.Retry:
			retries++
		case session.Warning:
			warnings++
		}
	})
	if err != nil {
		t.Fatalf("turn %d (faults %v): %v", i, tt.faults, err)
	}
	if len(done) != 1 || done[0] != tt.want {
		t.Fatalf("turn %d (faults %v): messages %q; want exactly [%q]", i, tt.faults, done, tt.want)
	}
	if slept := sleeps.Load() - before; slept != int64(len(tt.faults)) || retries != len(tt.faults) {
		t.Fatalf("turn %d (faults %v): %d sleeps and %d retry events; want %d", i, tt.faults, slept, retries, len(tt.faults))
	}
	if retracted != tt.partial || warnings != 0 {
		t.Fatalf("turn %d (faults %v): %d retractions, %d warnings; want %d, 0", i, tt.faults, retracted, warnings, tt.partial)
	}
}

// recordLastPOST passes requests to h, keeping the body of the last POST.
func recordLastPOST(h http.Handler, last *atomic.Pointer[[]byte]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			last.Store(&b)
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	})
}

// checkHistory checks the last request's input: every user question and
// every earlier answer exactly once, in order, and no fragment of a failed
// attempt.
func checkHistory(t *testing.T, body []byte, turns []soakTurn) {
	t.Helper()
	msgs, err := rt.InputMessages(body)
	if err != nil {
		t.Fatalf("last request body: %v", err)
	}
	var got []string
	for _, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" || len(m.Text) != 1 {
			continue
		}
		got = append(got, m.Role+": "+m.Text[0])
	}
	var want []string
	for i, tt := range turns {
		want = append(want, fmt.Sprintf("user: question %d", i))
		if i < len(turns)-1 {
			want = append(want, "assistant: "+tt.want)
		}
	}
	if len(got) < len(want) {
		t.Fatalf("last request has %d messages; want %d", len(got), len(want))
	}
	got = got[len(got)-len(want):] // skip any context messages before the first question
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("last request message %d = %q; want %q", i, got[i], want[i])
		}
	}
	if bytes.Contains(body, []byte("FRAGMENT")) {
		t.Errorf("a fragment of a failed attempt reached the history")
	}
}

// memory returns the live heap after garbage collection and the resident
// set size. It collects twice: objects reachable only from a finalizer
// (closed connections, and what they point to) survive the first cycle.
func memory() (heap, rss uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, procStatus("VmRSS")
}

func peakRSS() uint64 { return procStatus("VmHWM") }

// procStatus reads a kB field of /proc/self/status in bytes (0 if absent).
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == field {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// settleGoroutines waits, yielding rather than sleeping, until at most want
// goroutines run, and returns the count. Closed connections unwind
// asynchronously (the netpoller must report the close), hence the
// real-time bound.
func settleGoroutines(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	return runtime.NumGoroutine()
}
