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
		clients:  []string{"agent", "ref"},
		ref:      "ref",
		turn:     map[string][]sample{"agent": mk(10*time.Millisecond, 20*time.Millisecond, time.Millisecond, 10<<20), "ref": mk(100*time.Millisecond, 200*time.Millisecond, time.Second, 100<<20)},
		stream:   map[string][]sample{"agent": mk(0, 130*time.Millisecond, 150*time.Millisecond, 22<<20), "ref": mk(0, time.Second, 1500*time.Millisecond, 100<<20)},
		turnCurl: mk(4*time.Millisecond, 8*time.Millisecond, 2*time.Millisecond, 8<<20),
		curl:     mk(0, 125*time.Millisecond, 90*time.Millisecond, 8<<20),
		served:   []time.Duration{90 * time.Millisecond},
	}
	var b strings.Builder
	report(&b, options{runs: 1, deltas: 50000}, r, "1 1 1", "1 1 1")
	out := b.String()
	for _, want := range []string{
		"| figure | agent | ref | floor (curl) | ÷ floor | ÷ ref | target | result |",
		// 150/90 = 1.67 > 1.5 although 150/1500 = 0.1 ≤ 0.15: both must hold.
		"| 50000-delta stream, CPU user+sys | 150 ms (150–150) | 1500 ms (1500–1500) | 90 ms (90–90) | 1.67× | 0.10× | ≤ 1.5× floor, ≤ 0.15× ref | **MISS** |",
		"| 50000-delta stream, wall | 130 ms (130–130) | 1000 ms (1000–1000) | 125 ms (125–125) | 1.04× | 0.13× | ≤ 1.05× floor | pass |",
		"| spawn → first request | 10.0 ms (10.0–10.0) | 100 ms (100–100) | 4.0 ms (4.0–4.0) | 2.50× | 0.10× | ≤ 12 ms | pass |",
		"| peak RSS, one-turn exec | 10.0 MiB (10.0–10.0) | 100.0 MiB (100.0–100.0) | 8.0 MiB (8.0–8.0) | 1.25× | 0.10× | ≤ 16 MiB | pass |",
		"| peak RSS, 50000-delta stream | 22.0 MiB (22.0–22.0) | 100.0 MiB (100.0–100.0) | 8.0 MiB (8.0–8.0) | 2.75× | 0.22× | ≤ 20 MiB | **MISS** |",
		"| whole one-turn run, wall | 20 ms (20–20) | 200 ms (200–200) | 8.0 ms (8.0–8.0) | 2.50× | 0.10× | — | — |",
		"| agent | 1.04× | 1.04× |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchMetrics: the values of a go test -bench line are read by unit.
func TestBenchMetrics(t *testing.T) {
	out := "goos: linux\nBenchmarkMentionKeystrokes-2   \t      10\t  20177078 ns/op\t         2.566 key-ratio\t       120.1 µs/key-2k\nPASS\n"
	m := benchMetrics(out)
	if m["key-ratio"] != 2.566 || m["µs/key-2k"] != 120.1 || m["ns/op"] != 20177078 || len(m) != 3 {
		t.Errorf("benchMetrics = %v", m)
	}
}

func TestResumeReportTargets(t *testing.T) {
	mk := func(wall, cpu time.Duration, rss int64) []sample {
		return []sample{{wall: wall, user: cpu, maxRSS: rss, requests: 1}}
	}
	r := &results{clients: []string{"agent"}, resume: []resumeResult{{
		name: "exec resume", size: 31 << 20, rssMax: 77.5, cpuMax: 1000,
		samples: map[string][]sample{"agent": mk(time.Second, 1100*time.Millisecond, 70<<20)},
		curl:    mk(300*time.Millisecond, 200*time.Millisecond, 41<<20),
	}, {
		name: "resume --last", wallMax: 10_000,
		samples: map[string][]sample{"agent": mk(11*time.Second, 5*time.Second, 30<<20)},
	}}}
	var b strings.Builder
	resumeReport(&b, r)
	out := b.String()
	for _, want := range []string{
		"| exec resume | peak RSS | 70.0 MiB (70.0–70.0) | 41.0 MiB (41.0–41.0) | ≤ 2.5× the file (77.5 MiB) | pass |",
		"| exec resume | CPU user+sys | 1100 ms (1100–1100) | 200 ms (200–200) | ≤ 1000.0 ms | **MISS** |",
		"| resume --last | wall | 11000 ms (11000–11000) | — | ≤ 10000.0 ms | **MISS** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
