// Command benchrun measures the agent binary, whole, against a loopback
// fake Responses server (internal/responsestest/cmd/fakeresponses) and,
// with --with-reference, the reference client (Codex CLI, its native
// binary, installed with npm into bench/.cache) in the same run, and prints
// a Markdown report with the ratios the targets are stated in. Run it
// through bench/run.sh from anywhere in the module.
//
// What is measured, per client, over --runs runs interleaved between the
// clients (after one warm-up run each, not counted):
//
//   - spawn → first request: from just before fork/exec to the arrival of
//     the request's headers at the fake server, which logs it with the
//     wall clock;
//   - whole run: spawn to exit of a one-turn `exec`;
//   - peak RSS and CPU (user+sys): the child's rusage from wait4;
//   - a --deltas stream (default 50,000 deltas of "lorem ", each its own
//     response.output_text.delta event in its own write): CPU, wall and
//     peak RSS.
//
// The floor is `curl -sN` run in the same rounds: reading the same stream
// into /dev/null (CPU, wall), and making the one-turn request (spawn →
// first request: process start and dial). The report is the table of
// issue 21: each figure with the floor and the ratios, from one run.
//
// Children run in a temporary directory, with HOME and AGENT_HOME (or
// CODEX_HOME) in a temporary directory holding a config.toml that selects
// the fake provider, stdin from /dev/null, and stdout and stderr on pipes
// the harness drains (never a terminal).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// options are the command-line flags.
type options struct {
	withReference bool
	codex         string
	agent         string
	compare       string
	runs          int
	deltas        int
	big           int
	bigOnly       bool
	websocket     bool
	cache         string
	proxy         bool
	terminal      bool
	proxyFor      time.Duration
	tui           bool
	resumeOnly    bool
	sessions      int
}

func main() {
	var o options
	flag.BoolVar(&o.withReference, "with-reference", false, "also measure Codex CLI "+referenceVersion+" (npm install into --cache on first use)")
	flag.StringVar(&o.codex, "codex", "", "path of an installed codex native binary (implies --with-reference, skips npm)")
	flag.StringVar(&o.agent, "agent", "", "path of an agent binary to measure instead of building ./cmd/agent")
	flag.StringVar(&o.compare, "compare", "", "path of a second agent binary to measure alongside (an A/B of a change)")
	flag.IntVar(&o.runs, "runs", 10, "measured runs per client and scenario (medians are reported)")
	flag.IntVar(&o.deltas, "deltas", 50000, "text deltas in the streaming scenario")
	flag.IntVar(&o.big, "big", 10<<20, "bytes of the big-payload scenarios (one delta, a command's output, a call's arguments); 0 skips them")
	flag.BoolVar(&o.bigOnly, "big-only", false, "run only the big-payload scenarios")
	flag.BoolVar(&o.websocket, "websocket", false, "the clients speak WebSocket to the fake server (supports_websockets = true) instead of HTTP SSE")
	flag.BoolVar(&o.resumeOnly, "resume-only", false, "run only the big-session scenarios: exec resume of a 100,000-item rollout (and --sessions)")
	flag.IntVar(&o.sessions, "sessions", 0, "also run exec resume --last among this many sessions without an index (100000: 400 MB written); 0 skips it")
	flag.StringVar(&o.cache, "cache", "bench/.cache", "where the reference client is installed (relative to the module root)")
	flag.BoolVar(&o.proxy, "proxy", false, "run only the proxy scenario: keep-alive clients' requests per second direct, through agent proxy and through a bare Go relay, at 50 and 200 clients")
	flag.BoolVar(&o.terminal, "terminal", false, "run only the terminal scenario: --version, doctor --offline and exec under script(1), a pseudo-terminal that answers no query, with and without NO_COLOR")
	flag.DurationVar(&o.proxyFor, "proxy-for", 3*time.Second, "with --proxy: how long each measurement sends")
	flag.BoolVar(&o.tui, "tui", false, "run only the TUI's @-search benchmarks (go test -bench in ./tui: first results and keystrokes over 100,000 against 2,000 files)")
	flag.Parse()
	if o.tui {
		root, err := moduleRoot()
		if err == nil {
			err = runTUI(root, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if o.runs < 1 || o.deltas < 1 || o.big < 0 || o.sessions < 0 {
		fmt.Fprintln(os.Stderr, "benchrun: --runs and --deltas must be positive, --big and --sessions not negative")
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

// results are the samples per client name; clients[0] is agent.
type results struct {
	clients  []string
	ref      string // the reference client's name, "" if not run
	turn     map[string][]sample
	stream   map[string][]sample
	turnCurl []sample        // curl making the one-turn request
	curl     []sample        // curl reading the stream
	served   []time.Duration // the fake server's handler time for each curl read
	big      []bigResult     // the big-payload scenarios, agent and --compare only
	resume   []resumeResult  // the big-session scenarios
}

// bigResult is one big-payload scenario's samples per client and curl's.
type bigResult struct {
	name    string
	samples map[string][]sample
	curl    []sample
}

func run(o options, w io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "benchrun-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	load0 := loadAverage()

	agentBin := o.agent
	if agentBin == "" {
		if agentBin, err = buildAgent(root, tmp); err != nil {
			return err
		}
	}
	fakeBin, err := buildFake(root, tmp)
	if err != nil {
		return err
	}
	if o.proxy {
		return proxyScenario(root, tmp, agentBin, fakeBin, o, w)
	}
	res := &results{turn: map[string][]sample{}, stream: map[string][]sample{}}
	clients, homes, work, err := setUp(o, root, tmp, agentBin)
	if err != nil {
		return err
	}
	res.ref = refName(clients)

	for _, c := range clients {
		res.clients = append(res.clients, c.name)
	}
	if o.terminal {
		return terminalScenario(fakeBin, homes, clients, o, w)
	}
	curl, err := curlClient(work)
	if err != nil {
		return err
	}
	if o.resumeOnly {
		if res.resume, err = resumeScenarios(fakeBin, tmp, o, homes, clients, curl, res.ref); err != nil {
			return err
		}
		reportHeader(w, o, res, load0, loadAverage())
		resumeReport(w, res)
		return nil
	}
	if o.bigOnly {
		if res.big, err = bigScenarios(fakeBin, tmp, o, homes, clients, curl, res.ref); err != nil {
			return err
		}
		reportHeader(w, o, res, load0, loadAverage())
		bigReport(w, res)
		return nil
	}
	const reply = "hello from the fake server"
	fmt.Fprintf(os.Stderr, "benchrun: one-turn runs (%d per client, and curl)\n", o.runs)
	if err := scenario(fakeBin, o.websocket, []string{"--reply", reply}, homes, clients, o.runs, reply, res.turn, &curlRuns{c: curl, into: &res.turnCurl}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchrun: %d-delta stream runs (%d per client, and curl)\n", o.deltas, o.runs)
	want := strings.Repeat(streamDelta, 8)
	if err := scenario(fakeBin, o.websocket, []string{"--deltas", fmt.Sprint(o.deltas), "--delta", streamDelta}, homes, clients, o.runs, want,
		res.stream, &curlRuns{c: curl, into: &res.curl, served: &res.served}); err != nil {
		return err
	}
	if o.big > 0 {
		if res.big, err = bigScenarios(fakeBin, tmp, o, homes, clients, curl, res.ref); err != nil {
			return err
		}
	}
	if res.resume, err = resumeScenarios(fakeBin, tmp, o, homes, clients, curl, res.ref); err != nil {
		return err
	}
	report(w, o, res, load0, loadAverage())
	return nil
}

// reference is the reference client: --codex, else Codex CLI
// referenceVersion installed with npm into --cache.
func reference(o options, root string, dirs map[string]string) (client, error) {
	bin := o.codex
	if bin == "" {
		cache := o.cache
		if !filepath.IsAbs(cache) {
			cache = filepath.Join(root, cache)
		}
		var err error
		if bin, err = installReference(cache); err != nil {
			return client{}, err
		}
	}
	ref := referenceClient(bin, dirs["codex-home"], dirs["work"])
	if out, err := exec.Command(bin, "--version").Output(); err == nil && o.codex != "" {
		ref.name = strings.Replace(strings.TrimSpace(string(out)), "codex-cli", "codex", 1) // --codex: the binary's own version
	}
	return ref, nil
}

// setUp makes the clients' homes and working directory under tmp and the
// clients: agent, --compare's, and the reference's when asked for.
func setUp(o options, root, tmp, agentBin string) (clients []client, homes []string, work string, err error) {
	dirs := map[string]string{}
	for _, d := range []string{"agent-home", "codex-home", "work"} {
		dirs[d] = filepath.Join(tmp, d)
		if err := os.Mkdir(dirs[d], 0o700); err != nil {
			return nil, nil, "", err
		}
	}
	clients = append(clients, agentClient(agentBin, dirs["agent-home"], dirs["work"]))
	if o.compare != "" {
		alt := agentClient(o.compare, dirs["agent-home"], dirs["work"])
		alt.name = "agent (--compare)"
		clients = append(clients, alt)
	}
	if o.withReference || o.codex != "" {
		ref, err := reference(o, root, dirs)
		if err != nil {
			return nil, nil, "", err
		}
		clients = append(clients, ref)
	}
	return clients, []string{dirs["agent-home"], dirs["codex-home"]}, dirs["work"], nil
}

// refName is the reference client's name, "" when it is not run.
func refName(clients []client) string {
	for _, c := range clients {
		if !strings.HasPrefix(c.name, "agent") {
			return c.name
		}
	}
	return ""
}

// streamDelta is the text of each delta of the streaming scenario.
const streamDelta = "lorem "

// curlRuns asks scenario to interleave curl runs of the same request,
// recording them in into and, if served is set, the server's handler time.
// With extra set, each recorded run is followed by that many more (not
// recorded), so that curl takes all the requests of a scenario that has
// several.
type curlRuns struct {
	c      client
	into   *[]sample
	served *[]time.Duration
	extra  int
}

// scenario starts a fake server with args, points every home's config at
// it, warms each client up once and then runs each client n times,
// interleaved, recording the samples in into.
func scenario(fakeBin string, websocket bool, args, homes []string, clients []client, n int, want string, into map[string][]sample, curl *curlRuns) (err error) {
	srv, err := startServer(fakeBin, args...)
	if err != nil {
		return err
	}
	defer func() {
		if serr := srv.Stop(); serr != nil && err == nil {
			err = fmt.Errorf("fake server: %w", serr)
		}
	}()
	for _, h := range homes {
		if err := writeConfig(h, srv.URL, websocket); err != nil {
			return err
		}
	}
	if curl != nil {
		curl.c.args = append(slices.Clone(curl.c.args), srv.URL+"/responses")
	}
	for _, c := range clients { // warm-up: page cache, first-run state files
		if _, err := runOnce(c, srv, want); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	for range n {
		for _, c := range clients {
			s, err := runOnce(c, srv, want)
			if err != nil {
				return err
			}
			into[c.name] = append(into[c.name], s)
		}
		if curl != nil {
			from := srv.count()
			s, err := runOnce(curl.c, srv, "")
			if err != nil {
				return err
			}
			reqs, err := srv.requestsFrom(from, 1, 5*time.Second)
			if err != nil {
				return err
			}
			*curl.into = append(*curl.into, s)
			if curl.served != nil {
				*curl.served = append(*curl.served, reqs[0].end.Sub(reqs[0].at))
			}
			for range curl.extra {
				if _, err := runOnce(curl.c, srv, ""); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// curlClient reads the stream like a bare HTTP client: curl -sN into
// /dev/null. The URL is appended per scenario.
func curlClient(work string) (client, error) {
	bin, err := exec.LookPath("curl")
	if err != nil {
		return client{}, fmt.Errorf("the curl floor needs curl: %w", err)
	}
	return client{
		name: "curl",
		bin:  bin,
		args: []string{"-sSfN", "-X", "POST", "-H", "Content-Type: application/json", "--data", "{}", "-o", "/dev/null"},
		env:  []string{"PATH=" + os.Getenv("PATH")},
		dir:  work,
	}, nil
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run benchrun inside the agent module (bench/run.sh does)")
	}
	return filepath.Dir(mod), nil
}
