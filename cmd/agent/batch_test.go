package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/headless/batch"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/retry/gate"
)

// writeBatch writes lines to dir/batch.jsonl and returns its path.
func writeBatch(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "batch.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func batchLine(id, prompt string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "prompt": prompt})
	return string(b)
}

// readResults parses result lines.
func readResults(t *testing.T, data string) []batch.Result {
	t.Helper()
	var out []batch.Result
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		if line == "" {
			continue
		}
		var r batch.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("result line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// classes maps id to status/exit class, for comparisons.
func classes(rs []batch.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		out[r.ID] = fmt.Sprintf("%s/%d", r.Status, r.ExitClass)
	}
	return out
}

// TestBatchUsageErrors: exec's flags that --batch cannot take, and a bad
// batch file, exit 2 before any prompt runs (the file's checks, line by
// line, are batch.TestReadFileErrors).
func TestBatchUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := batchLine("a", "hi")
	tests := []struct {
		name  string
		lines []string
		args  []string
		want  string
	}{
		{"bad JSON", []string{ok, `{"id": "b", "prompt": `}, nil, "batch.jsonl:2: not a JSON object"},
		{"jobs 0", []string{ok}, []string{"--jobs", "0"}, "--jobs 0: want 1 or more"},
		{"max retries 0", []string{ok}, []string{"--max-concurrent-retries", "0"}, "--max-concurrent-retries 0"},
		{"with --json", []string{ok}, []string{"--json"}, "drop --json and -o"},
		{"with a prompt", []string{ok}, []string{"hello"}, "not from an argument"},
		{"bad shard", []string{ok}, []string{"--shard", "4/3"}, "want K from 1 to 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeBatch(t, dir, tt.lines...)
			args := append([]string{"exec", "--batch", path}, tt.args...)
			r := runCLI(t, nil, runOpts{stdinTTY: true}, args...)
			if r.code != exitcode.Usage {
				t.Errorf("exit %d; want 2; stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q; want no results", r.stdout)
			}
		})
	}
	t.Run("batch flag without --batch", func(t *testing.T) {
		r := runCLI(t, nil, runOpts{stdinTTY: true}, "exec", "--jobs", "3", "hi")
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "need --batch FILE") {
			t.Errorf("exit %d stderr %q", r.code, r.stderr)
		}
	})
}

// TestBatchExitCodes: each prompt's failure from the server gets the
// exit class `agent exec` would give it alone, and the batch exits with
// the most urgent (the order itself is batch.TestRunExitOrder). A prompt
// whose working directory is gone when it starts fails as `agent exec -C
// gone` would: 2.
func TestBatchExitCodes(t *testing.T) {
	t.Parallel()
	ok := rt.Reply("r", "m", "fine")
	cut := rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop())
	t.Run("classes", func(t *testing.T) {
		scripts := map[string]rt.Script{
			"a": {ok},
			"b": {rt.Error(400, "invalid_request_error", "", "bad field")},
			"c": {cut, cut, cut, cut, cut, cut},
			"d": {rt.Error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota")},
			"e": {rt.Status(401)},
		}
		ps := agenttest.NewPromptServer(t, scripts)
		var lines []string
		for _, id := range slices.Sorted(maps.Keys(scripts)) {
			lines = append(lines, batchLine(id, id))
		}
		path := writeBatch(t, t.TempDir(), lines...)
		r := runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--no-auto-continue", "--batch", path, "--jobs", "2")
		if r.code != exitcode.Auth {
			t.Errorf("exit %d; want 3; stderr:\n%s", r.code, r.stderr)
		}
		want := map[string]string{"a": "completed/0", "b": "failed/1", "c": "failed/5", "d": "failed/4", "e": "failed/3"}
		if diff := cmp.Diff(want, classes(readResults(t, r.stdout))); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
	})
	t.Run("cwd gone: 2", func(t *testing.T) {
		// --jobs 1 runs a, then b. Answering a also deletes b's working
		// directory.
		dir := t.TempDir()
		gone := filepath.Join(dir, "gone")
		if err := os.Mkdir(gone, 0o700); err != nil {
			t.Fatal(err)
		}
		ps := agenttest.NewPromptServer(t, map[string]rt.Script{"a": {rt.Status(401)}, "b": {ok}})
		ps.OnRequest = func(string, int) { _ = os.Remove(gone) }
		path := writeBatch(t, dir, batchLine("a", "a"), `{"id":"b","prompt":"b","cwd":"gone"}`)
		r := runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--batch", path, "--jobs", "1")
		if r.code != exitcode.Usage {
			t.Errorf("exit %d; want 2; stderr:\n%s", r.code, r.stderr)
		}
		want := map[string]string{"a": "failed/3", "b": "failed/2"}
		if diff := cmp.Diff(want, classes(readResults(t, r.stdout))); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
	})
}

// TestBatchResultsResume interrupts a batch midway, then re-runs it with
// the same --results file: completed ids are skipped, the rest run, and no
// id has two completed lines.
func TestBatchResultsResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeBatch(t, dir, batchLine("a", "a"), batchLine("b", "b"), batchLine("c", "c"), batchLine("d", "d"))
	results := filepath.Join(dir, "results.jsonl")

	first := agenttest.NewPromptServer(t, map[string]rt.Script{
		"a": {rt.Reply("r", "m", "answer a")},
		"b": {rt.Stream(rt.Created("r"), rt.TextDelta("m", "part"), rt.Barrier("b"), rt.Stall())},
		"c": nil, "d": nil,
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-first.Scripts["b"].Reached("b")
		cancel()
	}()
	r := runCLI(t, nil, runOpts{config: first.Config(), ctx: ctx}, "exec", "--batch", path, "--jobs", "1", "--results", results)
	if r.code != exitcode.Interrupted {
		t.Fatalf("first run: exit %d; want 130; stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("first run: stdout = %q; results go to the file", r.stdout)
	}

	second := agenttest.NewPromptServer(t, map[string]rt.Script{
		"a": nil,
		"b": {rt.Reply("r", "m", "answer b")},
		"c": {rt.Reply("r", "m", "answer c")},
		"d": {rt.Reply("r", "m", "answer d")},
	})
	r = runCLI(t, nil, runOpts{config: second.Config()}, "exec", "--batch", path, "--jobs", "2", "--results", results)
	if r.code != exitcode.OK {
		t.Fatalf("second run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "skipping 1 prompts already completed") || !strings.Contains(r.stderr, "3 completed (+1 earlier)") {
		t.Errorf("second run stderr:\n%s", r.stderr)
	}
	if diff := cmp.Diff(map[string]int{"b": 1, "c": 1, "d": 1}, second.Requests()); diff != "" {
		t.Errorf("second run requests per prompt (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range readResults(t, string(data)) {
		got = append(got, res.ID+" "+res.Status+" "+res.FinalMessage)
	}
	// Lines of one run are in completion order; sort the second run's.
	slices.Sort(got[2:])
	want := []string{"a completed answer a", "b interrupted ", "b completed answer b", "c completed answer c", "d completed answer d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results file (-want +got):\n%s", diff)
	}

	// A third run has nothing left to do and sends nothing.
	third := agenttest.NewPromptServer(t, map[string]rt.Script{"a": nil, "b": nil, "c": nil, "d": nil})
	r = runCLI(t, nil, runOpts{config: third.Config()}, "exec", "--batch", path, "--results", results)
	if r.code != exitcode.OK || len(third.Requests()) != 0 {
		t.Errorf("third run: exit %d, requests %v; stderr:\n%s", r.code, third.Requests(), r.stderr)
	}
	after, _ := os.ReadFile(results)
	if !bytes.Equal(after, data) {
		t.Errorf("third run changed the results file:\n%s", after)
	}
}

// TestBatchProgress: on a terminal stderr the batch draws its status
// line, counting a prompt in a retry, with failures above it; on a pipe,
// plain lines (the rendering itself is batch.TestProgressTerminal and
// TestProgressPipe).
func TestBatchProgress(t *testing.T) {
	t.Parallel()
	scripts := map[string]rt.Script{
		"a": {rt.Status(500), rt.Reply("r", "m", "ok")},
		"b": {rt.Error(400, "invalid_request_error", "", "bad field")},
	}
	path := writeBatch(t, t.TempDir(), batchLine("a", "a"), batchLine("b", "b"))
	ps := agenttest.NewPromptServer(t, scripts)
	r := runCLI(t, nil, runOpts{config: ps.Config(), stderrTTY: true}, "exec", "--batch", path, "--jobs", "1")
	for _, want := range []string{
		"\r\x1b[Kbatch 0/2 done · 0 failed · 1 retrying",
		"\r\x1b[Kagent: batch [2/2] b failed (exit 1): ",
		"\r\x1b[Kbatch 2/2 done · 1 failed · 0 retrying\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, r.stderr)
		}
	}
	ps = agenttest.NewPromptServer(t, scripts)
	r = runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--batch", path, "--jobs", "1")
	if want := "agent: batch [1/2] a completed after 1 retries\n"; !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "\x1b[") {
		t.Errorf("stderr on a pipe: want %q and no terminal codes:\n%q", want, r.stderr)
	}
}

// TestBatchPerPromptCwd: cwd is relative to the batch file's directory.
func TestBatchPerPromptCwd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	ps := agenttest.NewPromptServer(t, map[string]rt.Script{"a": {rt.Reply("r", "m", "ok")}})
	path := writeBatch(t, dir, `{"id":"a","prompt":"a","cwd":"sub"}`)
	r := runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--batch", path)
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var req struct {
		Input []struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(ps.Scripts["a"].Requests()[0].Body, &req); err != nil || len(req.Input) == 0 || len(req.Input[0].Content) == 0 {
		t.Fatalf("request body: %v", err)
	}
	envContext := req.Input[0].Content[0].Text
	if want := filepath.Join(dir, "sub"); !strings.Contains(envContext, "<cwd>"+want+"</cwd>") {
		t.Errorf("the environment context lacks cwd %s:\n%s", want, envContext)
	}
}

// gateWatch is the test's view of every job of a batch run: what the
// fake server holds, what the retry gate holds (through its Trace) and
// which sleeps are cooldowns. Retried requests are held at the server, and
// cooldown sleeps last, until every busy job is held somewhere, so a gate
// that let too many re-sends (or anything during a cooldown) through would
// be caught, and without any real waiting.
type gateWatch struct {
	jobs, k, total int
	plan           map[string][]int // per prompt: HTTP status of each request
	cooldown       time.Duration    // the Retry-After of the 429s

	mu         sync.Mutex
	gen        int
	wake       chan struct{} // closed when gen moves on
	finished   int           // prompts whose final answer was served
	held       int           // retried requests held at the server
	blocked    [2]int        // callers held by the gate: [first attempt, re-send]
	cooling    int           // cooldown sleeps in progress
	allowance  int           // requests that passed the gate before the cooldown, not yet arrived
	passed     int
	arrived    int
	sleeps     []time.Duration
	violations []string

	// maxHeld is the most retried requests at the server at once;
	// heldBackBySlots the most re-sends the gate held back at a settled
	// moment with every slot in use; heldBackByCooldown the most callers
	// it held back at a settled moment of a cooldown.
	maxHeld, heldBackBySlots, heldBackByCooldown int
}

// settled reports whether every busy job is held: by the server, by the
// gate or in a cooldown sleep.
func (w *gateWatch) settled() bool {
	busy := min(w.jobs, w.total-w.finished)
	return busy > 0 && w.held+w.blocked[0]+w.blocked[1]+w.cooling >= busy
}

// check wakes everyone waiting when the jobs have settled (or a
// violation ended the experiment). Call with mu held.
func (w *gateWatch) check() {
	if !w.settled() && len(w.violations) == 0 {
		return
	}
	if w.cooling > 0 {
		w.heldBackByCooldown = max(w.heldBackByCooldown, w.blocked[0]+w.blocked[1])
	} else if w.held == w.k {
		w.heldBackBySlots = max(w.heldBackBySlots, w.blocked[1])
	}
	w.gen++
	close(w.wake)
	w.wake = make(chan struct{})
}

// waitWake waits, with mu held, for the next wake after generation g.
func (w *gateWatch) waitWake(ctx context.Context, g int) {
	for w.gen == g {
		ch := w.wake
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		w.mu.Lock()
		if ctx.Err() != nil {
			return
		}
	}
}

func (w *gateWatch) violate(format string, args ...any) {
	w.violations = append(w.violations, fmt.Sprintf(format, args...))
}

// onRequest runs in the server before each answer.
func (w *gateWatch) onRequest(ctx context.Context) func(prompt string, n int) {
	return func(prompt string, n int) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.arrived++
		if w.cooling > 0 {
			if w.allowance--; w.allowance < 0 {
				w.violate("request %d of %q arrived during a cooldown without passing the gate before it", n+1, prompt)
			}
		}
		if n > 0 { // a retried request: hold it until everyone is held
			g := w.gen
			w.held++
			w.maxHeld = max(w.maxHeld, w.held)
			w.check()
			w.waitWake(ctx, g)
			w.held--
		}
		if n == len(w.plan[prompt])-1 {
			w.finished++ // its answer is the final one: the prompt is done
			w.check()    // fewer busy jobs: the rest may all be held now
		}
	}
}

// sleep is the injected Sleep: it records every wait; a cooldown lasts
// until every busy job is held.
func (w *gateWatch) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sleeps = append(w.sleeps, d)
	if d != w.cooldown {
		return ctx.Err()
	}
	g := w.gen
	if w.cooling++; w.cooling == 1 {
		w.allowance = w.passed - w.arrived
	}
	w.check()
	w.waitWake(ctx, g)
	w.cooling--
	return ctx.Err()
}

func (w *gateWatch) trace() *gate.Trace {
	idx := func(resend bool) int {
		if resend {
			return 1
		}
		return 0
	}
	return &gate.Trace{
		Blocked: func(resend bool) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.blocked[idx(resend)]++
			w.check()
		},
		Unblocked: func(resend bool, _ error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.blocked[idx(resend)]--
		},
		Passed: func(resend bool) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.passed++
			if w.cooling > 0 {
				w.violate("the gate let a request through during a cooldown (resend %v)", resend)
			}
		},
	}
}

// faultPlan scripts n prompts from a fixed seed: each request fails with
// probability 0.3 (at most 3 times a prompt, within request_max_retries),
// as a 503 or, one time in four, a 429 with Retry-After.
func faultPlan(n int) map[string][]int {
	rng := rand.New(rand.NewPCG(2026, 42))
	plan := map[string][]int{}
	for i := range n {
		var codes []int
		for len(codes) < 3 && rng.Float64() < 0.3 {
			code := http.StatusServiceUnavailable
			if rng.Float64() < 0.25 {
				code = http.StatusTooManyRequests
			}
			codes = append(codes, code)
		}
		plan[fmt.Sprintf("prompt %02d", i)] = append(codes, http.StatusOK)
	}
	return plan
}

// gateScripts turns a fault plan into each prompt's script, and returns
// the waits the retry schedule gives its failures. It fails the test when
// the plan does not exercise what TestBatchSharedRetryGate claims: at
// least jobs prompts whose first request fails (every job gets stuck in a
// retry), some 429s, and about 30% failed requests.
func gateScripts(t *testing.T, plan map[string][]int, jobs int) (map[string]rt.Script, []time.Duration) {
	t.Helper()
	scripts := map[string]rt.Script{}
	var wantSleeps []time.Duration
	failing, requests, rateLimited := 0, 0, 0
	for prompt, codes := range plan {
		var s rt.Script
		for i, code := range codes {
			switch code {
			case http.StatusOK:
				s = append(s, rt.Reply("r", "m", "answer to "+prompt))
			case http.StatusTooManyRequests:
				s = append(s, rt.Status(code, "Retry-After", "7"))
				wantSleeps = append(wantSleeps, 7*time.Second)
				rateLimited++
			default:
				s = append(s, rt.Status(code))
				wantSleeps = append(wantSleeps, 200*ms<<i) // 200 ms·2^(n-1), jitter 0 at Rand 0.5
			}
		}
		scripts[prompt] = s
		requests += len(codes)
		if len(codes) > 1 {
			failing++
		}
	}
	if failing < jobs || rateLimited < 2 || (requests-len(plan))*100/requests < 25 {
		t.Fatalf("plan too gentle: %d failing prompts, %d 429s, %d/%d failed requests", failing, rateLimited, requests-len(plan), requests)
	}

	t.Logf("%d prompts, %d requests (%d failed, %d of them 429)", len(plan), requests, requests-len(plan), rateLimited)
	return scripts, wantSleeps
}

// TestBatchSharedRetryGate runs 50 prompts, 8 at a time, against a server
// that fails 30% of requests with 503 or 429 (Retry-After: 7): every prompt
// completes; the server never has more than 3 (the default
// --max-concurrent-retries) retried requests in flight, and had that many;
// no request reaches it during a cooldown unless it passed the gate
// before the cooldown began; and every wait is exactly the schedule's.
func TestBatchSharedRetryGate(t *testing.T) {
	t.Parallel()
	const jobs, k = 8, 3
	plan := faultPlan(50)
	w := &gateWatch{jobs: jobs, k: k, total: len(plan), plan: plan, cooldown: 7 * time.Second, wake: make(chan struct{})}

	scripts, wantSleeps := gateScripts(t, plan, jobs)
	ps := agenttest.NewPromptServer(t, scripts)
	ps.OnRequest = w.onRequest(t.Context())
	var lines []string
	for _, p := range slices.Sorted(maps.Keys(plan)) {
		lines = append(lines, batchLine(strings.ReplaceAll(p, "prompt ", "id-"), p))
	}
	dir := t.TempDir()
	path := writeBatch(t, dir, lines...)
	results := filepath.Join(dir, "results.jsonl")

	ctx := gate.WithTrace(t.Context(), w.trace())
	r := runWithSleep(t, ps.Config(), ctx, w.sleep, "exec", "--batch", path, "--jobs", fmt.Sprint(jobs), "--results", results)
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}

	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	got := readResults(t, string(data))
	if len(got) != len(plan) {
		t.Errorf("%d result lines; want %d", len(got), len(plan))
	}
	for _, res := range got {
		prompt := strings.ReplaceAll(res.ID, "id-", "prompt ")
		if res.Status != batch.StatusCompleted || res.ExitClass != 0 || res.FinalMessage != "answer to "+prompt {
			t.Errorf("result %+v; want completed with the answer", res)
		}
		if want := len(plan[prompt]) - 1; res.Retries != want {
			t.Errorf("%s: retries = %d; want %d", res.ID, res.Retries, want)
		}
	}
	for prompt, srv := range ps.Scripts {
		if n, want := len(srv.Requests()), len(plan[prompt]); n != want {
			t.Errorf("%s: %d requests; want %d", prompt, n, want)
		}
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range w.violations {
		t.Error(v)
	}
	if w.maxHeld != k {
		t.Errorf("at most %d retried requests at the server at once; want exactly %d (the gate's limit, reached)", w.maxHeld, k)
	}
	if w.heldBackBySlots == 0 {
		t.Errorf("the gate held back at most %d re-sends with every slot in use; want %d (every other job)", w.heldBackBySlots, jobs-k)
	}
	if w.heldBackByCooldown == 0 {
		t.Errorf("no job was ever held back by a cooldown")
	}
	slices.Sort(wantSleeps)
	slices.Sort(w.sleeps)
	if diff := cmp.Diff(wantSleeps, w.sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	t.Logf("full slots held back up to %d re-sends, cooldowns up to %d jobs", w.heldBackBySlots, w.heldBackByCooldown)
}

// runWithSleep is runCLI with a caller's Sleep and context, for tests
// that steer the clock themselves.
func runWithSleep(t *testing.T, config string, ctx context.Context, sleep func(context.Context, time.Duration) error, args ...string) execRun {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AGENT_HOME": home, "FAKE_KEY": fakeKey}
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, Env{
		Stdin:  strings.NewReader(""),
		Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		Width:  func() int { return 40 },
		Sleep:  sleep,
		Rand:   func() float64 { return 0.5 },
	})
	r := execRun{code: code, stdout: stdout.String(), stderr: stderr.String(), home: home}
	assertNoSecret(t, r)
	return r
}

// TestBatchOneEngine: a batch is one engine. Three prompts, one after the
// other, share the MCP servers (one MCP session: they start once), each in
// a session of its own. (The HTTP pool and the auth manager are the
// engine's by construction, [engine.scope]; whether a keep-alive
// connection is reused depends on timing, so it is not counted here.)
func TestBatchOneEngine(t *testing.T) {
	t.Parallel()
	srv := rt.New(rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"), rt.Reply("r3", "m3", "three")},
		rt.Options{OnUnexpected: func(msg string) { t.Errorf("%s", msg) }})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)
	mcpSrv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" +
		hs.URL + "/v1\"\nenv_key = \"FAKE_KEY\"\n\n[mcp_servers.test]\nurl = \"" + mcpSrv.URL + "\"\n"
	path := writeBatch(t, t.TempDir(), batchLine("a", "first"), batchLine("b", "second"), batchLine("c", "third"))
	r := runCLI(t, nil, runOpts{config: cfg}, "exec", "--batch", path, "--jobs", "1")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	ids := map[string]bool{}
	for _, res := range readResults(t, r.stdout) {
		ids[res.SessionID] = true
	}
	if len(ids) != 3 {
		t.Errorf("%d distinct session ids; want one session per prompt", len(ids))
	}
	sessions := map[string]bool{}
	for _, h := range mcpSrv.Headers() {
		if id := h.Get("Mcp-Session-Id"); id != "" {
			sessions[id] = true
		}
	}
	if len(sessions) != 1 {
		t.Errorf("%d MCP sessions; want 1 (the servers start once per batch)", len(sessions))
	}
}
