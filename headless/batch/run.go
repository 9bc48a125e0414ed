package batch

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// Options say how [Run] runs a batch.
type Options struct {
	// Jobs is how many prompts run at once, at least 1.
	Jobs int
	// Prompt runs one prompt and returns its result. Jobs goroutines call
	// it at once; when ctx ends, a running prompt ends interrupted.
	Prompt func(ctx context.Context, it Item) Result
	// Results gets every result.
	Results *Sink
	// Progress reports the batch.
	Progress *Progress
	// Skipped is how many prompts the results file records as completed
	// already; the summary counts them.
	Skipped int
	// Stderr gets the summary of a batch whose every prompt completed.
	Stderr io.Writer
}

// Run runs todo, o.Jobs prompts at a time, writes each result to
// o.Results and returns the batch's exit error. On ctx's end it starts no
// new prompt; running ones end interrupted and are recorded so. A result
// that cannot be written stops the batch the same way.
//
// The exit error is nil when every prompt completed, else an
// [*exitcode.Error] with the most urgent exit class among the results
// (exitcode.Interrupted when ctx ended before every prompt started), its
// message a count of the results by class.
func Run(ctx context.Context, todo []Item, o Options) error {
	var mu sync.Mutex
	counts := map[int]int{} // results by exit class
	jobCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	feed := make(chan Item)
	var wg sync.WaitGroup
	for range min(o.Jobs, len(todo)) {
		wg.Go(func() {
			for it := range feed {
				if jobCtx.Err() != nil {
					continue // stopping: start nothing new
				}
				o.Progress.Started(it.ID)
				r := o.Prompt(jobCtx, it)
				if err := o.Results.Write(r); err != nil {
					cancel(err) // results cannot be kept: stop spending
				}
				mu.Lock()
				counts[r.ExitClass]++
				mu.Unlock()
				o.Progress.Finished(r)
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
	o.Progress.End()
	if err := o.Results.Err(); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	return exit(ctx, counts, len(todo), o)
}

// exitPriority orders the failing exit classes, most urgent first: an
// interrupted batch is incomplete, usage and auth failures need a person
// and usually affect every prompt, a quota waits for its reset, transient
// failures may pass on a re-run, and plain failures are the prompts' own.
func exitPriority() []int {
	return []int{exitcode.Interrupted, exitcode.Usage, exitcode.Auth, exitcode.Quota, exitcode.Exhausted, exitcode.Failed, exitcode.NotSaved}
}

// exit returns the batch's exit error from the counts of its results by
// exit class.
func exit(ctx context.Context, counts map[int]int, total int, o Options) error {
	done := 0
	for _, n := range counts {
		done += n
	}
	if ctx.Err() != nil && done < total {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: fmt.Errorf("batch interrupted: %s; %d not started", summary(counts, o.Skipped), total-done)}
	}
	for _, code := range exitPriority() {
		if counts[code] > 0 {
			return &exitcode.Error{Code: code, Err: fmt.Errorf("batch: %s", summary(counts, o.Skipped))}
		}
	}
	fmt.Fprintf(o.Stderr, "agent: batch: %s\n", summary(counts, o.Skipped))
	return nil
}

// summary counts the results by status and exit class.
func summary(counts map[int]int, skipped int) string {
	parts := []string{fmt.Sprintf("%d completed", counts[exitcode.OK])}
	if skipped > 0 {
		parts[0] += fmt.Sprintf(" (+%d earlier)", skipped)
	}
	for _, code := range exitPriority() {
		if n := counts[code]; n > 0 {
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

// Session is what a prompt's turn needs of its session
// ([*session.Session]).
type Session interface {
	Turn(ctx context.Context, input string, emit func(session.Event)) error
	Usage() transport.Usage
	// Cost is what the session cost in USD; nil when unknown.
	Cost() *float64
	SaveError() error
}

// RunPrompt runs it's turn on sess, a session of its own with the id
// sessionID, as `agent exec` would, and returns its result; p learns
// when the prompt is retrying.
func RunPrompt(ctx context.Context, sess Session, sessionID string, it Item, p *Progress) Result {
	r := Result{ID: it.ID, SessionID: sessionID}
	var last string
	err := sess.Turn(ctx, it.Prompt, func(ev session.Event) {
		switch ev := ev.(type) {
		case session.Retry:
			r.Retries++
			p.Retrying(it.ID, true)
		case session.Warning:
		case session.MessageDone:
			last = ev.Text
			p.Retrying(it.ID, false)
		default:
			p.Retrying(it.ID, false)
		}
	})
	r.Usage = execprint.UsageOf(sess.Usage(), sess.Cost())
	if err != nil {
		return failed(ctx, r, &exitcode.Error{Code: exitcode.ForTurn(err), Err: err})
	}
	r.Status, r.ExitClass, r.FinalMessage = StatusCompleted, exitcode.OK, last
	if err := sess.SaveError(); err != nil {
		// The answer is here; its session is not on disk.
		r.ExitClass, r.Error = exitcode.NotSaved, "the turn completed, but the session was not saved: "+err.Error()
	}
	return r
}

// Failed returns the result of prompt id that could not run its turn
// (its session could not be built) because of err: interrupted when ctx
// ended, else failed with err's exit code ([exitcode.Of]).
func Failed(ctx context.Context, id string, err error) Result {
	return failed(ctx, Result{ID: id, Usage: execprint.UsageOf(transport.Usage{}, nil)}, err)
}

// failed fills r for a prompt that did not complete.
func failed(ctx context.Context, r Result, err error) Result {
	r.ExitClass = exitcode.Of(err)
	r.Status = StatusFailed
	if ctx.Err() != nil || r.ExitClass == exitcode.Interrupted {
		r.Status, r.ExitClass = StatusInterrupted, exitcode.Interrupted
	}
	r.Error = err.Error()
	return r
}
