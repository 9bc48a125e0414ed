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

// report writes the Markdown section: machine, command, two tables.
func report(w io.Writer, o options, r *results, load0, load1 string) {
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
	fmt.Fprintf(w, "Run %s: `%s`\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), cmd)
	fmt.Fprintf(w, "Machine: %d CPUs (nproc), %s, Linux %s, %s %s/%s; load average %s at start, %s at end.\n\n",
		runtime.NumCPU(), cpuModel(), kernel(), goVersion(), runtime.GOOS, runtime.GOARCH, load0, load1)
	fmt.Fprintf(w, "Medians of %d runs per client (min–max in brackets); ratio is agent ÷ %s.\n\n", o.runs, orDash(r.ref, "the reference (not run)"))

	agent := r.clients[0]
	head := "| measure | " + strings.Join(r.clients, " | ")
	if r.ref == "" {
		head += " | reference (not run)"
	}
	fmt.Fprintf(w, "%s | ratio | target | result |\n|---%s|---|---|---|\n", head, strings.Repeat("|---", strings.Count(head, "|")-1))
	row := func(name string, get func(sample) float64, unit string, samples map[string][]sample, target float64) {
		cells := []string{name}
		for _, c := range r.clients {
			cells = append(cells, cell(samples[c], get, unit))
		}
		ratio, tgt, res := "—", "—", "—"
		if r.ref == "" {
			cells = append(cells, "—")
		} else {
			x := median(samples[agent], get) / median(samples[r.ref], get)
			ratio = fmt.Sprintf("%.3f×", x)
			if target > 0 {
				res = verdict(x <= target)
			}
		}
		if target > 0 {
			tgt = fmt.Sprintf("≤ %.2g×", target)
		}
		cells = append(cells, ratio, tgt, res)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	rss := func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) }
	cpu := func(s sample) float64 { return ms(s.cpu()) }
	wall := func(s sample) float64 { return ms(s.wall) }
	row("spawn → first request", func(s sample) float64 { return ms(s.firstRequest) }, "ms", r.turn, 0.2)
	row("whole one-turn run (wall)", wall, "ms", r.turn, 0.3)
	row("peak RSS, one-turn run", rss, "MiB", r.turn, 0.2)
	row("CPU user+sys, one-turn run", cpu, "ms", r.turn, 0)
	sd := fmt.Sprintf("%d-delta stream: ", o.deltas)
	row(sd+"CPU user+sys", cpu, "ms", r.stream, 0.25)
	row(sd+"wall", wall, "ms", r.stream, 0)
	row(sd+"peak RSS", rss, "MiB", r.stream, 0)
	for _, name := range r.clients {
		lo, hi := requestRange(append(slices.Clone(r.turn[name]), r.stream[name]...))
		if lo != 1 || hi != 1 {
			fmt.Fprintf(w, "\nNote: %s made %d to %d requests per run (one was expected).\n", name, lo, hi)
		}
	}

	floor := median(r.curl, wall)
	fmt.Fprintf(w, "\n%sthe floor is `curl -sN` reading the same stream into /dev/null: %s wall, %s CPU; "+
		"the fake server's handler took %.0f ms (median) to write it to curl. "+
		"Paired: each client run is divided by the curl run of the same round.\n\n",
		sd, cell(r.curl, wall, "ms"), cell(r.curl, cpu, "ms"), medianDur(r.served))
	fmt.Fprintf(w, "| stream wall vs curl floor | wall | ÷ curl | paired ÷ curl | target | result |\n|---|---|---|---|---|---|\n")
	for _, name := range r.clients {
		m := median(r.stream[name], wall)
		tgt, res := "—", "—"
		if name == agent {
			tgt, res = "≤ 1.2×", verdict(m/floor <= 1.2)
		}
		fmt.Fprintf(w, "| %s | %.0f ms | %.2f× | %.2f× | %s | %s |\n", name, m, m/floor, pairedRatio(r.stream[name], r.curl, wall), tgt, res)
	}
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
	if v[len(v)-1] < 20 {
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
