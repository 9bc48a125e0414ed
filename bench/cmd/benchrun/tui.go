package main

import (
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// tuiBenchmarks are the TUI's @-search benchmarks --tui runs (issue 44).
const tuiBenchmarks = "^(BenchmarkMentionFirstResults|BenchmarkMentionKeystrokes)$"

// runTUI runs the TUI's @-search benchmarks with go test in module root and
// prints their figures beside the targets.
func runTUI(root string, w io.Writer) error {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", tuiBenchmarks, "-benchtime", "10x", "./tui/")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go test -bench ./tui/: %v\n%s", err, out)
	}
	m := benchMetrics(string(out))
	fmt.Fprintf(w, "TUI @ search (go test -bench '%s' -benchtime 10x ./tui/), load %s\n", tuiBenchmarks, loadAverage())
	fmt.Fprintf(w, "  %-44s %10s   %s\n", "", "measured", "target")
	for _, r := range []struct {
		label, unit, target string
		optional            bool // the thread's CPU time: on Linux only
	}{
		{"first @ results, 100,000 files (ms)", "ms-first-results", "≤ 500", false},
		{"whole index, 100,000 files (ms)", "ms-whole-index", "", false},
		{"@ keystroke, 2,000 files (µs)", "µs/key-2k", "", false},
		{"@ keystroke, 100,000 files (µs)", "µs/key-100k", "", false},
		{"keystroke, 100,000 / 2,000 files", "key-ratio", "≤ 2", false},
		{"the search alone, 100,000 / 2,000 files", "search-ratio", "", false},
		{"@ keystroke CPU, 2,000 files (µs)", "cpu-µs/key-2k", "", true},
		{"@ keystroke CPU, 100,000 files (µs)", "cpu-µs/key-100k", "", true},
		{"keystroke CPU, 100,000 / 2,000 files", "cpu-key-ratio", "≤ 2", true},
	} {
		v, ok := m[r.unit]
		if !ok && r.optional {
			continue
		}
		if !ok {
			return fmt.Errorf("go test -bench ./tui/ reported no %s:\n%s", r.unit, out)
		}
		fmt.Fprintf(w, "  %-44s %10.4g   %s\n", r.label, v, r.target)
	}
	return nil
}

// benchMetrics are the values of go test -bench's output by unit: each
// benchmark line is a name, a count, then value and unit pairs.
func benchMetrics(out string) map[string]float64 {
	m := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[f[i+1]] = v
			}
		}
	}
	return m
}
