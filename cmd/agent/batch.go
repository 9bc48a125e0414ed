package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentcli/agent/execprint"
	"github.com/agentcli/agent/exitcode"
	"github.com/agentcli/agent/redact"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/termtext"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Defaults of the batch flags.
const (
	defaultBatchJobs            = 4
	defaultMaxConcurrentRetries = 3
)

// Result statuses of a batch prompt.
const (
	statusCompleted   = "completed"
	statusFailed      = "failed"
	statusInterrupted = "interrupted"
)

// batchFlags are agent exec's batch flags.
type batchFlags struct {
	file       string
	jobs       int
	results    string
	maxRetries int
	shard      string
	fs         *pflag.FlagSet // to tell set flags from defaults
}

// addBatchFlags registers the batch flags of agent exec on fs.
func addBatchFlags(fs *pflag.FlagSet, f *batchFlags) {
	f.fs = fs
	fs.StringVar(&f.file, "batch", "", `run every prompt of FILE, one JSON object a line: {"id":…, "prompt":…, "cwd":…} (docs/exec-batch.md)`)
	fs.IntVar(&f.jobs, "jobs", defaultBatchJobs, "with --batch: prompts run at once")
	fs.StringVar(&f.results, "results", "", "with --batch: append results to FILE instead of stdout; prompts FILE records as completed are skipped")
	fs.IntVar(&f.maxRetries, "max-concurrent-retries", defaultMaxConcurrentRetries, "with --batch: retried requests in flight at once, across all jobs and every agent process of AGENT_HOME (default: [retry] max_concurrent_resends)")
	fs.StringVar(&f.shard, "shard", "", "with --batch: run only slice K of N (K/N; N alone takes K from JOB_COMPLETION_INDEX, 0-based)")
}

// maxResends is --max-concurrent-retries when given, else 0: the
// configured [retry] max_concurrent_resends.
func (f *batchFlags) maxResends() int {
	if f.fs != nil && f.fs.Changed("max-concurrent-retries") {
		return f.maxRetries
	}
	return 0
}

// requested reports whether any batch flag was given.
func (f *batchFlags) requested() bool {
	if f.file != "" {
		return true
	}
	for _, name := range []string{"jobs", "results", "max-concurrent-retries", "shard"} {
		if f.fs != nil && f.fs.Changed(name) {
			return true
		}
	}
	return false
}

// batchItem is one prompt of a batch file.
type batchItem struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	// dir is Cwd resolved against the batch file's directory; "" means
	// -C, else the current directory.
	dir string
}

// batchResult is one line of the results (docs/exec-batch.md).
type batchResult struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// ExitClass is the exit code `agent exec` would have given the
	// prompt alone.
	ExitClass    int              `json:"exit_class"`
	FinalMessage string           `json:"final_message"`
	Usage        *execprint.Usage `json:"usage"`
	Retries      int              `json:"retries"`
	SessionID    string           `json:"session_id,omitempty"`
	Error        string           `json:"error,omitempty"`
}

// runBatch is agent exec --batch.
func runBatch(ctx context.Context, env Env, g *globalFlags, f *execFlags, args []string) error {
	bf := f.batch
	switch {
	case bf.file == "":
		return usageError(errors.New("--jobs, --results, --max-concurrent-retries and --shard need --batch FILE"))
	case len(args) > 0:
		return usageError(errors.New("--batch takes its prompts from FILE, not from an argument"))
	case f.json || f.lastMessage != "":
		return usageError(errors.New("--batch writes JSON result lines already; drop --json and -o"))
	case bf.jobs < 1:
		return usageError(fmt.Errorf("--jobs %d: want 1 or more", bf.jobs))
	case bf.maxRetries < 1:
		return usageError(fmt.Errorf("--max-concurrent-retries %d: want 1 or more", bf.maxRetries))
	}
	items, err := readBatch(bf.file)
	if err != nil {
		return usageError(err)
	}
	if bf.shard != "" {
		sh, err := parseShard(bf.shard, env.Getenv)
		if err != nil {
			return usageError(err)
		}
		if items = sh.filter(items); len(items) == 0 {
			fmt.Fprintf(env.Stderr, "agent: batch: slice %d/%d of %s holds no prompts\n", sh.k, sh.n, bf.file)
		}
	}
	schema, err := readSchema(f.outputSchema)
	if err != nil {
		return usageError(err)
	}
	out := &resultSink{w: env.Stdout}
	todo := items
	if bf.results != "" {
		var completed map[string]bool
		if out, completed, err = openResults(bf.results, env.Stderr); err != nil {
			return &exitcode.Error{Code: exitcode.Failed, Err: err}
		}
		defer out.Close()
		out.secrets = env.Secrets
		todo = todo[:0:0]
		for _, it := range items {
			if !completed[it.ID] {
				todo = append(todo, it)
			}
		}
		if n := len(items) - len(todo); n > 0 {
			fmt.Fprintf(env.Stderr, "agent: batch: skipping %d prompts already completed in %s\n", n, bf.results)
		}
	}
	if err := f.codex.apply(g, &f.sandbox, nil); err != nil {
		return usageError(err)
	}
	if err := checkExecApproval(env, f.approval); err != nil {
		return err
	}
	addDirs, err := f.codex.writableRoots()
	if err != nil {
		return usageError(err)
	}
	b := &batch{
		env: env, g: g, out: out, skipped: len(items) - len(todo),
		opts: engineOptions{
			originator: "agent_exec", cd: f.cd, sandbox: f.sandbox, addDirs: addDirs,
			// exec never asks: the sandbox is the protection.
			approval:       tools.PolicyNever,
			noAutoContinue: f.noAutoContinue, ephemeral: f.ephemeral, outputSchema: schema,
			// One gate for every job, and with every agent process of this
			// AGENT_HOME: the provider's limits are the account's.
			maxResends: bf.maxResends(),
		},
		progress: newBatchProgress(env.Stderr, env.StderrTTY, len(todo), env.now),
		notices:  map[string]bool{},
	}
	// One engine for the whole batch: config, log, HTTP pool, auth
	// manager, MCP servers (and the demo server) are built once; each
	// prompt gets a session of its own ([engine.scope]). An engine that
	// cannot be built fails every prompt with its error.
	if len(todo) > 0 {
		e, err := newEngine(ctx, env, g, b.opts)
		if err != nil {
			b.engineErr = err
		} else {
			defer e.Close()
			b.engine = e
			b.notify(e.notices)
		}
	}
	return b.run(ctx, todo, bf.jobs)
}

// readBatch reads and checks a batch file. Its errors name the line.
func readBatch(path string) ([]batchItem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	var items []batchItem
	firstLine := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		it, err := parseBatchLine(line, base)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if first, dup := firstLine[it.ID]; dup {
			return nil, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", path, n, it.ID, first)
		}
		firstLine[it.ID] = n
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no prompts", path)
	}
	return items, nil
}

// parseBatchLine decodes one line, resolving cwd against base.
func parseBatchLine(line []byte, base string) (batchItem, error) {
	var it batchItem
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return it, fmt.Errorf("%q must be a string", te.Field)
		}
		return it, fmt.Errorf("not a JSON object with id, prompt and cwd: %w", err)
	}
	if dec.More() {
		return it, errors.New("more than one JSON value on the line")
	}
	if it.ID == "" {
		return it, errors.New(`"id" is missing or empty`)
	}
	if strings.TrimSpace(it.Prompt) == "" {
		return it, fmt.Errorf(`id %q: "prompt" is missing or empty`, it.ID)
	}
	if it.Cwd != "" {
		it.dir = it.Cwd
		if !filepath.IsAbs(it.dir) {
			it.dir = filepath.Join(base, it.dir)
		}
		if st, err := os.Stat(it.dir); err != nil || !st.IsDir() {
			return it, fmt.Errorf("id %q: cwd %q is not a directory", it.ID, it.Cwd)
		}
	}
	return it, nil
}

// resultSink writes result lines: each is one Write (under a lock, and
// with O_APPEND for a file), so concurrent jobs never interleave and a
// crash never leaves half a line.
type resultSink struct {
	mu  sync.Mutex
	w   io.Writer
	f   *os.File // the --results file; nil for stdout
	err error    // the first write error; later writes fail with it
	// secrets are masked in every line.
	secrets *redact.Set
}

// openResults opens path for appending and returns the ids it records as
// completed. A last line cut short by a crash is ended with a newline
// first, so the next result starts on a line of its own; lines that are
// not results are reported on warn and ignored.
func openResults(path string, warn io.Writer) (*resultSink, map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("--results: %w", err)
	}
	completed := map[string]bool{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r batchResult
		if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
			fmt.Fprintf(warn, "agent: %s:%d: not a result line; ignored\n", path, i+1)
			continue
		}
		if r.Status == statusCompleted {
			completed[r.ID] = true
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--results: %w", err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("--results: %w", err)
		}
	}
	return &resultSink{w: f, f: f}, completed, nil
}

// write appends r as one line, synced to disk for a file.
func (s *resultSink) write(r batchResult) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append([]byte(s.secrets.String(string(line))), '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(line); err != nil {
		s.err = fmt.Errorf("write results: %w", err)
		return s.err
	}
	if s.f != nil {
		if err := s.f.Sync(); err != nil {
			s.err = fmt.Errorf("write results: %w", err)
		}
	}
	return s.err
}

// Err returns the first write error.
func (s *resultSink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close closes the results file.
func (s *resultSink) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// batch is one run of agent exec --batch.
type batch struct {
	env    Env
	g      *globalFlags
	opts   engineOptions // what the engine is built with
	engine *engine       // shared by every prompt; nil when engineErr
	// engineErr is why the engine could not be built: every prompt fails
	// with it.
	engineErr error
	out       *resultSink
	progress  *batchProgress
	skipped   int // prompts the results file records as completed

	mu      sync.Mutex
	notices map[string]bool // engine notices already shown
	counts  map[int]int     // results by exit class
}

// run runs todo, jobs prompts at a time, and returns the batch's exit
// error. On ctx's end it starts no new prompt; running ones end
// interrupted and are recorded so.
func (b *batch) run(ctx context.Context, todo []batchItem, jobs int) error {
	b.counts = map[int]int{}
	jobCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	feed := make(chan batchItem)
	var wg sync.WaitGroup
	for range min(jobs, len(todo)) {
		wg.Go(func() {
			for it := range feed {
				if jobCtx.Err() != nil {
					continue // stopping: start nothing new
				}
				r := b.runOne(jobCtx, it)
				if err := b.out.write(r); err != nil {
					cancel(err) // results cannot be kept: stop spending
				}
				b.mu.Lock()
				b.counts[r.ExitClass]++
				b.mu.Unlock()
				b.progress.finished(r)
			}
		})
	}
	for _, it := range todo {
		if jobCtx.Err() != nil {
			break
		}
		select {
		case feed <- it:
		case <-jobCtx.Done():
		}
	}
	close(feed)
	wg.Wait()
	b.progress.end()
	if err := b.out.Err(); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	return b.exit(ctx, len(todo))
}

// exitPriority orders the failing exit classes, most urgent first: an
// interrupted batch is incomplete, usage and auth failures need a person
// and usually affect every prompt, a quota waits for its reset, transient
// failures may pass on a re-run, and plain failures are the prompts' own.
func exitPriority() []int {
	return []int{exitcode.Interrupted, exitcode.Usage, exitcode.Auth, exitcode.Quota, exitcode.Exhausted, exitcode.Failed, exitcode.NotSaved}
}

// exit returns the batch's exit error: nil when every prompt completed,
// else the most urgent class of exitPriority among the results (130 too
// when ctx ended before every prompt started).
func (b *batch) exit(ctx context.Context, total int) error {
	done := 0
	for _, n := range b.counts {
		done += n
	}
	if ctx.Err() != nil && done < total {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: fmt.Errorf("batch interrupted: %s; %d not started", b.summary(), total-done)}
	}
	for _, code := range exitPriority() {
		if b.counts[code] > 0 {
			return &exitcode.Error{Code: code, Err: fmt.Errorf("batch: %s", b.summary())}
		}
	}
	fmt.Fprintf(b.env.Stderr, "agent: batch: %s\n", b.summary())
	return nil
}

// summary counts the results by status and exit class.
func (b *batch) summary() string {
	parts := []string{fmt.Sprintf("%d completed", b.counts[exitcode.OK])}
	if b.skipped > 0 {
		parts[0] += fmt.Sprintf(" (+%d earlier)", b.skipped)
	}
	for _, code := range exitPriority() {
		if n := b.counts[code]; n > 0 {
			what := "failed"
			switch code {
			case exitcode.Interrupted:
				what = "interrupted"
			case exitcode.NotSaved:
				what = "completed, not saved"
			}
			parts = append(parts, fmt.Sprintf("%d %s (exit %d)", n, what, code))
		}
	}
	return strings.Join(parts, ", ")
}

// runOne runs one prompt as `agent exec` would, in a session of its own
// on the batch's engine, and returns its result.
func (b *batch) runOne(ctx context.Context, it batchItem) batchResult {
	r := batchResult{ID: it.ID, Usage: execprint.UsageOf(transport.Usage{})}
	b.progress.started(it.ID)
	if b.engineErr != nil {
		return failedResult(ctx, r, b.engineErr)
	}
	sc, err := b.engine.scope(it.dir)
	if err != nil {
		var ee *exitcode.Error
		if !errors.As(err, &ee) {
			err = &exitcode.Error{Code: exitcode.Failed, Err: err}
		}
		return failedResult(ctx, r, err)
	}
	defer sc.Close()
	sess := sc.sess
	r.SessionID = sc.id
	var last string
	err = sess.Turn(ctx, it.Prompt, func(ev session.Event) {
		switch ev := ev.(type) {
		case session.Retry:
			r.Retries++
			b.progress.retrying(it.ID, true)
		case session.Warning:
		case session.MessageDone:
			last = ev.Text
			b.progress.retrying(it.ID, false)
		default:
			b.progress.retrying(it.ID, false)
		}
	})
	r.Usage = execprint.UsageOf(sess.Usage())
	if err != nil {
		return failedResult(ctx, r, &exitcode.Error{Code: exitcode.ForTurn(err), Err: err})
	}
	r.Status, r.ExitClass, r.FinalMessage = statusCompleted, exitcode.OK, last
	if err := sess.SaveError(); err != nil {
		// The answer is here; its session is not on disk.
		r.ExitClass, r.Error = exitcode.NotSaved, "the turn completed, but the session was not saved: "+err.Error()
	}
	return r
}

// failedResult fills r for a prompt that did not complete: interrupted
// when ctx ended, else failed with its exit class.
func failedResult(ctx context.Context, r batchResult, err error) batchResult {
	r.ExitClass = exitcode.Failed
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		r.ExitClass = ee.Code
	}
	r.Status = statusFailed
	if ctx.Err() != nil || r.ExitClass == exitcode.Interrupted {
		r.Status, r.ExitClass = statusInterrupted, exitcode.Interrupted
	}
	r.Error = err.Error()
	return r
}

// notify shows each distinct engine notice once per batch.
func (b *batch) notify(notices []string) {
	b.mu.Lock()
	var fresh []string
	for _, n := range notices {
		if !b.notices[n] {
			b.notices[n] = true
			fresh = append(fresh, n)
		}
	}
	b.mu.Unlock()
	for _, n := range fresh {
		b.progress.println("agent: " + n)
	}
}

// batchProgress reports a batch on stderr: on a terminal, one status line
// redrawn in place (done, failed, retrying, total, ETA) with failures
// printed above it; otherwise one plain line per result.
type batchProgress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	now   func() time.Time
	start time.Time
	total int
	done  int
	fail  int             // results that did not complete
	jobs  map[string]bool // running prompts: retrying or not
	drawn bool
}

func newBatchProgress(w io.Writer, tty bool, total int, now func() time.Time) *batchProgress {
	return &batchProgress{w: w, tty: tty, now: now, start: now(), total: total, jobs: map[string]bool{}}
}

func (p *batchProgress) started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jobs[id] = false
	p.redraw()
}

// retrying records whether prompt id is in a retry now.
func (p *batchProgress) retrying(id string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if was, ok := p.jobs[id]; !ok || was == on {
		return
	}
	p.jobs[id] = on
	p.redraw()
}

func (p *batchProgress) finished(r batchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.jobs, r.ID)
	p.done++
	if r.Status != statusCompleted {
		p.fail++
	}
	line := fmt.Sprintf("agent: batch [%d/%d] %s %s", p.done, p.total, r.ID, r.Status)
	if r.Status != statusCompleted {
		line += fmt.Sprintf(" (exit %d): %s", r.ExitClass, r.Error)
	} else if r.Retries > 0 {
		line += fmt.Sprintf(" after %d retries", r.Retries)
	}
	if !p.tty || r.Status != statusCompleted {
		p.printLocked(line)
	}
	p.redraw()
}

// println prints line above the status line.
func (p *batchProgress) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printLocked(line)
	p.redraw()
}

// printLocked prints line, which may carry text from outside (a server's
// error message): on a terminal it is sanitized, as exec's errors are.
func (p *batchProgress) printLocked(line string) {
	if p.tty {
		line = termtext.Sanitize(line)
	}
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
	fmt.Fprintln(p.w, line)
}

// redraw rewrites the status line on a terminal.
func (p *batchProgress) redraw() {
	if !p.tty {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K"+p.status())
	p.drawn = true
}

// status is the terminal status line, for example
// "batch 12/50 done · 1 failed · 2 retrying · ETA 1m20s".
func (p *batchProgress) status() string {
	retrying := 0
	for _, on := range p.jobs {
		if on {
			retrying++
		}
	}
	s := fmt.Sprintf("batch %d/%d done · %d failed · %d retrying", p.done, p.total, p.fail, retrying)
	if p.done > 0 && p.done < p.total {
		elapsed := p.now().Sub(p.start)
		s += " · ETA " + session.RetryDelay(elapsed*time.Duration(p.total-p.done)/time.Duration(p.done))
	}
	return s
}

// end leaves the final status line on its own line.
func (p *batchProgress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
