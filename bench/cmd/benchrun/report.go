package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// target is what a figure must meet; zero fields do not apply.
type target struct {
	floor float64 // at most this many times the floor
	ref   float64 // at most this many times the reference
	abs   float64 // at most this much, in the row's unit
}

func (t target) String() string {
	var parts []string
	if t.abs > 0 {
		parts = append(parts, fmt.Sprintf("≤ %g", t.abs))
	}
	if t.floor > 0 {
		parts = append(parts, fmt.Sprintf("≤ %g× floor", t.floor))
	}
	if t.ref > 0 {
		parts = append(parts, fmt.Sprintf("≤ %g× ref", t.ref))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

// runCommand is the bench/run.sh command line that repeats the run.
func runCommand(o options, r *results) string {
	cmd := "bench/run.sh"
	if r.ref != "" {
		cmd += " --with-reference"
	}
	if o.agent != "" {
		cmd += " --agent " + o.agent
	}
	if o.compare != "" {
		cmd += " --compare " + o.compare
	}
	if o.runs != 10 {
		cmd += fmt.Sprintf(" --runs %d", o.runs)
	}
	if o.deltas != 50000 {
		cmd += fmt.Sprintf(" --deltas %d", o.deltas)
	}
	if o.big != 10<<20 {
		cmd += fmt.Sprintf(" --big %d", o.big)
	}
	if o.bigOnly {
		cmd += " --big-only"
	}
	if o.websocket {
		cmd += " --websocket"
	}
	if o.resumeOnly {
		cmd += " --resume-only"
	}
	if o.sessions != 0 {
		cmd += fmt.Sprintf(" --sessions %d", o.sessions)
	}
	return cmd
}

// report writes the Markdown section: run, machine, the figures table
// (every client, the curl floor, the ratios and the targets of issue 21)
// and the paired stream-wall ratios.
func report(w io.Writer, o options, r *results, load0, load1 string) {
	reportHeader(w, o, r, load0, load1)
	sd := fmt.Sprintf("%d-delta stream", o.deltas)
	fmt.Fprintf(w, "Medians of %d runs per client (min–max in brackets). The floor is `curl -sN` in the same rounds: "+
		"reading the %s into /dev/null (CPU, wall, RSS), and making the one-turn request "+
		"(spawn → first request: process start and dial). Ratios are agent ÷ floor and agent ÷ %s.\n\n",
		o.runs, sd, orDash(r.ref, "the reference (not run)"))

	agent := r.clients[0]
	head := "| figure | " + strings.Join(r.clients, " | ")
	if r.ref == "" {
		head += " | reference (not run)"
	}
	head += " | floor (curl) | ÷ floor | ÷ ref | target | result |"
	fmt.Fprintf(w, "%s\n|---%s\n", head, strings.Repeat("|---", strings.Count(head, "|")-2)+"|")
	row := func(name string, get func(sample) float64, unit string, samples map[string][]sample, floor []sample, t target) {
		cells := []string{name}
		for _, c := range r.clients {
			cells = append(cells, cell(samples[c], get, unit))
		}
		if r.ref == "" {
			cells = append(cells, "—")
		}
		a := median(samples[agent], get)
		ok := true
		checked := false
		ratio := func(den []sample, max float64) string {
			if len(den) == 0 {
				return "—"
			}
			x := a / median(den, get)
			if max > 0 {
				checked = true
				ok = ok && x <= max
			}
			return fmt.Sprintf("%.2f×", x)
		}
		cells = append(cells, cell(floor, get, unit), ratio(floor, t.floor), ratio(samples[r.ref], t.ref))
		if t.abs > 0 {
			checked = true
			ok = ok && a <= t.abs
		}
		res := "—"
		if checked {
			res = verdict(ok)
		}
		cells = append(cells, t.String()+unitSuffix(t, unit), res)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	rss := func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) }
	cpu := func(s sample) float64 { return ms(s.cpu()) }
	wall := func(s sample) float64 { return ms(s.wall) }
	first := func(s sample) float64 { return ms(s.firstRequest) }
	row(sd+", CPU user+sys", cpu, "ms", r.stream, r.curl, target{floor: 1.5, ref: 0.15})
	row(sd+", wall", wall, "ms", r.stream, r.curl, target{floor: 1.05})
	row("spawn → first request", first, "ms", r.turn, r.turnCurl, target{abs: 12})
	row("peak RSS, one-turn exec", rss, "MiB", r.turn, r.turnCurl, target{abs: 16})
	row("peak RSS, "+sd, rss, "MiB", r.stream, r.curl, target{abs: 20})
	row("whole one-turn run, wall", wall, "ms", r.turn, r.turnCurl, target{})
	row("CPU user+sys, one-turn run", cpu, "ms", r.turn, r.turnCurl, target{})
	for _, name := range r.clients {
		lo, hi := requestRange(append(slices.Clone(r.turn[name]), r.stream[name]...))
		if lo != 1 || hi != 1 {
			fmt.Fprintf(w, "\nNote: %s made %d to %d requests per run (one was expected).\n", name, lo, hi)
		}
	}

	fmt.Fprintf(w, "\nThe fake server's handler took %.0f ms (median) to write the %s to curl. "+
		"Paired: each client's stream wall divided by the curl run of the same round, median over rounds.\n\n",
		medianDur(r.served), sd)
	fmt.Fprintf(w, "| %s wall | ÷ curl | paired ÷ curl |\n|---|---|---|\n", sd)
	floor := median(r.curl, wall)
	for _, name := range r.clients {
		m := median(r.stream[name], wall)
		fmt.Fprintf(w, "| %s | %.2f× | %.2f× |\n", name, m/floor, pairedRatio(r.stream[name], r.curl, wall))
	}
	bigReport(w, r)
	resumeReport(w, r)
}

// reportHeader writes when, with which command and on what the run was.
func reportHeader(w io.Writer, o options, r *results, load0, load1 string) {
	fmt.Fprintf(w, "Run %s: `%s`\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), runCommand(o, r))
	fmt.Fprintf(w, "Machine: %d CPUs (nproc), %s, Linux %s, %s %s/%s; load average %s at start, %s at end.\n\n",
		runtime.NumCPU(), cpuModel(), kernel(), goVersion(), runtime.GOOS, runtime.GOARCH, load0, load1)
}

// bigReport writes the big-payload table (issue 30's targets: at most 1 s
// of CPU and 64 MiB of peak RSS for a 10 MiB event).
func bigReport(w io.Writer, r *results) {
	if len(r.big) == 0 {
		return
	}
	var clients []string
	for _, c := range r.clients {
		if c != r.ref {
			clients = append(clients, c)
		}
	}
	fmt.Fprintf(w, "\nBig payloads: each scenario is one `agent exec` turn (the call scenarios: the call, its output sent back, a short answer); "+
		"the floor is curl reading the first request's stream. Target (issue 30, for 10 MiB): CPU ≤ 1000 ms, peak RSS ≤ 64 MiB.\n\n")
	fmt.Fprintf(w, "| scenario | figure | %s | floor (curl) | target | result |\n|---|---|%s---|---|---|\n",
		strings.Join(clients, " | "), strings.Repeat("---|", len(clients)))
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	figures := []struct {
		name, unit string
		get        func(sample) float64
		max        float64
	}{
		{"CPU user+sys", "ms", func(s sample) float64 { return ms(s.cpu()) }, 1000},
		{"peak RSS", "MiB", func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) }, 64},
		{"wall", "ms", func(s sample) float64 { return ms(s.wall) }, 0},
	}
	for _, b := range r.big {
		for _, f := range figures {
			cells := []string{b.name, f.name}
			for _, c := range clients {
				cells = append(cells, cell(b.samples[c], f.get, f.unit))
			}
			res, tgt := "—", "—"
			if f.max > 0 {
				tgt = fmt.Sprintf("≤ %g %s", f.max, f.unit)
				res = verdict(median(b.samples[clients[0]], f.get) <= f.max)
			}
			cells = append(cells, cell(b.curl, f.get, f.unit), tgt, res)
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
}

// unitSuffix names the unit of an absolute target.
func unitSuffix(t target, unit string) string {
	if t.abs > 0 && t.floor == 0 && t.ref == 0 {
		return " " + unit
	}
	return ""
}

// pairedRatio is the median over rounds of a[i]/b[i].
func pairedRatio(a, b []sample, get func(sample) float64) float64 {
	var v []float64
	for i := range min(len(a), len(b)) {
		v = append(v, get(a[i])/get(b[i]))
	}
	return medianOf(v)
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "**MISS**"
}

func orDash(s, dash string) string {
	if s == "" {
		return dash
	}
	return s
}

// cell renders "median unit (min–max)".
func cell(ss []sample, get func(sample) float64, unit string) string {
	if len(ss) == 0 {
		return "—"
	}
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = get(s)
	}
	slices.Sort(v)
	f := "%.0f"
	if v[len(v)-1] < 20 || unit == "MiB" { // RSS targets are close: show tenths
		f = "%.1f"
	}
	return fmt.Sprintf(f+" %s ("+f+"–"+f+")", median(ss, get), unit, v[0], v[len(v)-1])
}

func median(ss []sample, get func(sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = get(s)
	}
	return medianOf(v)
}

func medianDur(ds []time.Duration) float64 {
	v := make([]float64, len(ds))
	for i, d := range ds {
		v[i] = float64(d) / 1e6
	}
	return medianOf(v)
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}

// requestRange is the fewest and most requests any of ss made.
func requestRange(ss []sample) (lo, hi int) {
	for i, s := range ss {
		if i == 0 || s.requests < lo {
			lo = s.requests
		}
		hi = max(hi, s.requests)
	}
	return lo, hi
}
