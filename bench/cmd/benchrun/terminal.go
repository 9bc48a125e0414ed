package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// terminalCommands are the --terminal scenario's commands, after the
// binary: what an orchestrator runs under a pseudo-terminal.
var terminalCommands = [][]string{{"--version"}, {"doctor", "--offline"}, {"exec", "hi"}}

// terminalScenario is --terminal: each command run under `script -qec`
// (a pseudo-terminal that answers no query), with and without NO_COLOR,
// o.runs times interleaved between the clients, whole-process wall time.
// A program that asks the terminal something at start-up waits for an
// answer that never comes (issue 44: under 1 s). The reference client
// runs `--version` and `exec` (it has no `doctor`).
func terminalScenario(fakeBin string, homes []string, clients []client, o options, w io.Writer) error {
	if _, err := exec.LookPath("script"); err != nil {
		return fmt.Errorf("--terminal needs script(1) (util-linux): %w", err)
	}
	srv, stop, err := startQuiet(fakeBin, "--listen", "127.0.0.1:0", "--reply", "hi", "--repeat", "100000")
	if err != nil {
		return err
	}
	defer stop()
	for _, h := range homes {
		if err := writeConfig(h, srv, false); err != nil {
			return err
		}
	}
	load0 := loadAverage()
	walls := map[string][]time.Duration{} // client | command | env
	key := func(c client, cmd []string, noColor bool) string {
		return fmt.Sprintf("%s|%s|%t", c.name, strings.Join(cmd, " "), noColor)
	}
	for round := 0; round <= o.runs; round++ { // round 0 warms up
		fmt.Fprintf(os.Stderr, "benchrun: terminal, round %d of %d\n", round, o.runs)
		for _, cmd := range terminalCommands {
			for _, noColor := range []bool{false, true} {
				for _, c := range clients {
					if cmd[0] == "doctor" && strings.HasPrefix(c.name, "codex") {
						continue
					}
					d, err := underScript(c, cmd, noColor)
					if err != nil {
						return err
					}
					if round > 0 {
						walls[key(c, cmd, noColor)] = append(walls[key(c, cmd, noColor)], d)
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "Run %s: `bench/run.sh --terminal --runs %d`\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), o.runs)
	fmt.Fprintf(w, "Load average %s at start, %s at end. Whole-process wall under `script -qec \"CMD\" /dev/null`, medians of %d runs (min–max in brackets).\n\n", load0, loadAverage(), o.runs)
	head := "| command | NO_COLOR |"
	rule := "|---|---|"
	for _, c := range clients {
		head += " " + c.name + " |"
		rule += "---|"
	}
	fmt.Fprintln(w, head+" target | result |")
	fmt.Fprintln(w, rule+"---|---|")
	for _, cmd := range terminalCommands {
		for _, noColor := range []bool{false, true} {
			row := fmt.Sprintf("| `%s` | %s |", strings.Join(cmd, " "), map[bool]string{false: "unset", true: "1"}[noColor])
			result := "pass"
			for _, c := range clients {
				ds := walls[key(c, cmd, noColor)]
				if len(ds) == 0 {
					row += " — |"
					continue
				}
				ms := make([]float64, len(ds))
				lo, hi := ds[0], ds[0]
				for i, d := range ds {
					ms[i] = float64(d) / 1e6
					lo, hi = min(lo, d), max(hi, d)
				}
				med := medianOf(ms)
				row += fmt.Sprintf(" %.0f ms (%.0f–%.0f) |", med, float64(lo)/1e6, float64(hi)/1e6)
				if c.name == "agent" && med >= 1000 {
					result = "**MISS**"
				}
			}
			fmt.Fprintln(w, row+" agent < 1 s | "+result+" |")
		}
	}
	return nil
}

// underScript runs c's binary with cmd under script(1) and returns its
// wall time; a non-zero exit is an error.
func underScript(c client, cmd []string, noColor bool) (time.Duration, error) {
	line := shellQuote(c.bin)
	for _, a := range cmd {
		line += " " + shellQuote(a)
	}
	if strings.HasPrefix(c.name, "codex") && cmd[0] == "exec" {
		line = shellQuote(c.bin) + " exec --skip-git-repo-check hi"
	}
	x := exec.Command("script", "-qec", line, os.DevNull)
	x.Env = append([]string{}, c.env...)
	if noColor {
		x.Env = append(x.Env, "NO_COLOR=1")
	}
	x.Env = append(x.Env, "TERM=xterm-256color")
	x.Dir = c.dir
	start := time.Now()
	out, err := x.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %s under script: %v\n%s", c.name, strings.Join(cmd, " "), err, tailOf(out))
	}
	return d, nil
}

// shellQuote quotes s for sh -c.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tailOf is the last 2 KiB of b.
func tailOf(b []byte) string {
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return string(b)
}
