package main

import (
	"strings"
	"testing"
	"time"
)

func TestMedianOf(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := medianOf(tt.in); got != tt.want {
			t.Errorf("medianOf(%v) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestTailWriterKeepsTheEnd(t *testing.T) {
	w := &tailWriter{max: 4}
	for _, s := range []string{"ab", "cdef", "g"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(w.tail()); got != "defg" || w.n != 7 {
		t.Errorf("tail = %q after %d bytes; want \"defg\" after 7", got, w.n)
	}
}

func TestReportTargets(t *testing.T) {
	mk := func(first, wall, cpu time.Duration, rss int64) []sample {
		return []sample{{firstRequest: first, wall: wall, user: cpu, maxRSS: rss, requests: 1}}
	}
	r := &results{
		clients: []string{"agent", "ref"},
		ref:     "ref",
		turn:    map[string][]sample{"agent": mk(10*time.Millisecond, 20*time.Millisecond, time.Millisecond, 10<<20), "ref": mk(100*time.Millisecond, 200*time.Millisecond, time.Second, 100<<20)},
		stream:  map[string][]sample{"agent": mk(0, 130*time.Millisecond, 500*time.Millisecond, 10<<20), "ref": mk(0, time.Second, time.Second, 100<<20)},
		curl:    mk(0, 100*time.Millisecond, time.Millisecond, 1<<20),
		served:  []time.Duration{90 * time.Millisecond},
	}
	var b strings.Builder
	report(&b, options{runs: 1, deltas: 50000}, r, "1 1 1", "1 1 1")
	out := b.String()
	for _, want := range []string{
		"| spawn → first request | 10.0 ms (10.0–10.0) | 100 ms (100–100) | 0.100× | ≤ 0.2× | pass |",
		"| peak RSS, one-turn run | 10.0 MiB (10.0–10.0) | 100 MiB (100–100) | 0.100× | ≤ 0.2× | pass |",
		"| 50000-delta stream: CPU user+sys | 500 ms (500–500) | 1000 ms (1000–1000) | 0.500× | ≤ 0.25× | **MISS** |",
		"| agent | 130 ms | 1.30× | 1.30× | ≤ 1.2× | **MISS** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
