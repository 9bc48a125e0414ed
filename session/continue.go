package session

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/retry"
)

// LayerContinue is the retry layer of turn continuations in [Retry] events.
const LayerContinue = "continue"

// DefaultContinuePrompt is sent, instead of the original prompt, when a
// failed turn is continued over its recorded history.
const DefaultContinuePrompt = "Your previous response was cut off by a connection or service problem. " +
	"Continue exactly where you left off, without repeating what you already said or redoing finished work."

// ContinuePolicy is the auto-continue policy of a turn. It is a snapshot:
// taken when the user submits the turn and carried with it, so a queued
// turn keeps the policy it was submitted with.
type ContinuePolicy struct {
	// Enabled turns auto-continue on.
	Enabled bool
	// Delays is the bounded schedule of waits before each continuation.
	Delays []time.Duration
	// Prompt is the continuation prompt.
	Prompt string
}

// DefaultContinuePolicy returns the default policy: on, 10 s, 20 s, 60 s.
func DefaultContinuePolicy() ContinuePolicy {
	return ContinuePolicy{
		Enabled: true,
		Delays:  []time.Duration{10 * time.Second, 20 * time.Second, 60 * time.Second},
		Prompt:  DefaultContinuePrompt,
	}
}

// Snapshot returns a copy of p that later changes to p cannot affect.
func (p ContinuePolicy) Snapshot() ContinuePolicy {
	p.Delays = slices.Clone(p.Delays)
	if p.Prompt == "" {
		p.Prompt = DefaultContinuePrompt
	}
	return p
}

// Coordinator runs a turn's attempts and decides, provider-agnostically,
// whether a failed attempt is continued. It asks the provider side only two
// questions: is this terminal failure retryable, and can the thread
// continue in the same context. Schedule, counting and prompts live here.
type Coordinator struct {
	Policy ContinuePolicy
	Sleep  retry.Sleeper
	// Retryable reports whether a terminal failure may be continued.
	Retryable func(error) bool
	// CanContinue reports whether the thread can continue in the same
	// context (history recorded, nothing ambiguous pending); a non-nil
	// error says why not.
	CanContinue func() error
	// Notify hears about each continuation before its wait.
	Notify func(n int, delay time.Duration, cause error)
	// Window, when set, returns the turn's time bound ([retry] max_wait_ms),
	// the one its requests' retries share: a continuation's wait is
	// shortened to end inside it, and none is made once it is spent.
	Window func() *retry.Window
}

// Run calls attempt with the original prompt, then with the continuation
// prompt after each retryable failure, while the schedule lasts and the
// thread can continue, through the one retry driver (the continuation
// layer's budget is the schedule). It returns nil on success, an
// [*modelclient.Outcome] ending [modelclient.EndPaused] when the schedule
// ran out or [modelclient.EndNotContinued] when the thread cannot
// continue, or the attempt's error when it is not retryable.
func (c *Coordinator) Run(ctx context.Context, prompt string, attempt func(ctx context.Context, prompt string) error) error {
	budget := retry.NewBudget(LayerContinue, len(c.Policy.Delays), 0)
	d := retry.Driver{
		Sleep: c.Sleep,
		Decide: func(err error) retry.Decision {
			if !c.Policy.Enabled || !c.Retryable(err) {
				return retry.Decision{}
			}
			if why := c.CanContinue(); why != nil {
				return retry.Decision{Final: &modelclient.Outcome{Failure: modelclient.Classify(err),
					End: modelclient.EndNotContinued, Reason: why.Error()}}
			}
			if budget.Exhausted() {
				o := &modelclient.Outcome{Failure: modelclient.Classify(err), End: modelclient.EndPaused}
				if c.Window != nil && c.Window().Spent() {
					o.Reason = modelclient.GaveUpBound(c.Window()) // the schedule and the bound ended together
				}
				return retry.Decision{Final: o}
			}
			delay := c.Policy.Delays[budget.Spent()]
			if c.Window != nil {
				w := c.Window()
				d, ok := w.Fit(delay, false)
				if !ok {
					return retry.Decision{Final: &modelclient.Outcome{Failure: modelclient.Classify(err),
						End: modelclient.EndPaused, Reason: modelclient.GaveUpBound(w)}}
				}
				delay = d
			}
			return retry.Decision{Budget: budget, Delay: delay}
		},
		Notify: func(w retry.Wait) {
			if c.Notify != nil {
				c.Notify(w.Attempt, w.Delay, w.Err)
			}
		},
	}
	_, err := retry.Do(ctx, d, func(ctx context.Context, n int) (struct{}, error) {
		p := prompt
		if n > 1 {
			p = c.Policy.Prompt
		}
		return struct{}{}, attempt(ctx, p)
	})
	return err
}

// continuable is the session's answer to "can this thread continue in the
// same context": the turn's history is recorded and none of this turn's
// tool calls (those not in earlier) is in an unknown state.
func (s *Session) continuable(earlier map[string]bool) error {
	for _, e := range s.ledger.Entries() {
		if earlier[e.CallID] {
			continue // an earlier turn's: it does not make this one ambiguous
		}
		if e.State == CallStarted || e.State == CallUnknown {
			return errors.New("a tool call's outcome is unknown (" + e.Name + " " + e.CallID + ")")
		}
	}
	if len(s.history) == 0 {
		return errors.New("there is no recorded context to continue")
	}
	return nil
}
