package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/transport"
)

// Alternative is one entry of a fallback chain: another provider (or
// another model) and the client that talks to it.
type Alternative struct {
	Candidate failover.Candidate
	Client    *modelclient.Client
}

// ProviderSwitch reports that the turn moved to another provider: the one
// it was on failed for good (Reason), or is still in the cooldown another
// run gave it.
type ProviderSwitch struct {
	From, To failover.Candidate
	Reason   string
}

func (ProviderSwitch) isEvent() {}

// chain is the session's fallback chain: its own client first, then
// [Options].Fallback. Nil when there is no fallback.
type chain struct {
	entries []Alternative
	mu      sync.Mutex // guards at: Provider may be read during a turn
	at      int        // the entry the session is on
	// portableUpTo is how much of the history came from other providers
	// than the current one: those items are sent in portable form.
	portableUpTo int
}

func newChain(opts Options) *chain {
	if len(opts.Fallback) == 0 {
		return nil
	}
	first := Alternative{
		Candidate: failover.Candidate{Provider: opts.Client.Provider().ID, Model: opts.Sampling.Model},
		Client:    opts.Client,
	}
	c := &chain{entries: append([]Alternative{first}, opts.Fallback...)}
	if from := opts.ResumedFrom; from.Provider != "" {
		for i, e := range c.entries {
			if e.Candidate == from {
				c.at = i
			}
		}
		if opts.ResumedMixed || c.entries[c.at].Candidate != from {
			c.portableUpTo = len(opts.Resumed)
		}
	}
	return c
}

func (c *chain) candidates() []failover.Candidate {
	out := make([]failover.Candidate, len(c.entries))
	for i, e := range c.entries {
		out[i] = e.Candidate
	}
	return out
}

// Provider returns where the session's requests go now. It is safe to
// call while a turn runs.
func (s *Session) Provider() failover.Candidate {
	if c := s.chain; c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.entries[c.at].Candidate
	}
	s.settingsMu.Lock() // applySettings may change the model meanwhile
	defer s.settingsMu.Unlock()
	return failover.Candidate{Provider: s.client.Provider().ID, Model: s.opts.Sampling.Model}
}

// sampling is the settings of the next request: the session's, with the
// model of the fallback entry it is on. It runs on the turn's goroutine.
func (s *Session) sampling() modelclient.Settings {
	st := s.opts.Sampling
	if c := s.chain; c != nil && c.at > 0 {
		st.Model = c.entries[c.at].Candidate.Model
	}
	return st
}

// OnFallback returns the fallback entry the session is on, and false when
// it is on its own provider. It is safe to call while a turn runs.
func (s *Session) OnFallback() (failover.Candidate, bool) {
	c := s.chain
	if c == nil {
		return failover.Candidate{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[c.at].Candidate, c.at > 0
}

// switchTo moves the session to chain entry i.
func (s *Session) switchTo(i int, reason string, emit func(Event)) {
	from := s.chain.entries[s.chain.at].Candidate
	s.chain.mu.Lock()
	s.chain.at = i
	s.chain.mu.Unlock()
	s.client = s.chain.entries[i].Client
	s.chain.portableUpTo = len(s.history)
	emit(ProviderSwitch{From: from, To: s.chain.entries[i].Candidate, Reason: reason})
}

// startOnHealthy, at the start of a turn, moves to the first entry of the
// chain that is not in a cooldown (another process, or an earlier run, saw
// it fail), or back to the first entry once its cooldown is over.
func (s *Session) startOnHealthy(emit func(Event)) {
	if s.chain == nil {
		return
	}
	i, _ := s.opts.Health.Choose(s.chain.candidates(), 0)
	if i == s.chain.at {
		return
	}
	var reason string
	if i > s.chain.at {
		until := s.opts.Health.DownUntil(s.chain.entries[s.chain.at].Candidate.Provider)
		reason = fmt.Sprintf("%s failed recently; skipped until %s", s.chain.entries[s.chain.at].Candidate.Provider,
			until.Local().Format("15:04:05"))
	} else {
		reason = s.chain.entries[i].Candidate.Provider + "'s cooldown is over"
	}
	s.switchTo(i, reason, emit)
}

// failOver decides, after a sampling request failed with err, whether the
// turn goes on at the next provider of the chain: err must say the
// provider cannot serve now ([modelclient.Failure.ProviderDown]). The
// failed provider is remembered as down for the server's delay (or
// [failover.DefaultCooldown]). It reports whether the session switched.
func (s *Session) failOver(ctx context.Context, err error, emit func(Event)) bool {
	if s.chain == nil || ctx.Err() != nil {
		return false
	}
	f := modelclient.Classify(err)
	if !f.ProviderDown() {
		return false
	}
	cur := s.chain.entries[s.chain.at].Candidate
	// Skipped for as long as the server said: the time it asked to wait
	// for, when a usage limit resets, or its delay.
	var herr error
	switch o := modelclient.OutcomeOf(err); {
	case o.End == modelclient.EndWait:
		herr = s.opts.Health.MarkDownUntil(ctx, cur.Provider, o.Until)
	case !f.ResetsAt.IsZero():
		herr = s.opts.Health.MarkDownUntil(ctx, cur.Provider, f.ResetsAt)
	default:
		herr = s.opts.Health.MarkDown(ctx, cur.Provider, f.Delay)
	}
	if herr != nil {
		emit(Warning{Message: "could not record the provider's failure for other runs: " + herr.Error()})
	}
	next := s.chain.at + 1
	if next >= len(s.chain.entries) {
		return false
	}
	i, _ := s.opts.Health.Choose(s.chain.candidates(), next)
	s.switchTo(i, fmt.Sprintf("%s failed: %s", cur, f.Reason()), emit)
	return true
}

// answered records that the current provider served a request.
func (s *Session) answered() {
	if s.chain != nil {
		s.opts.Health.MarkUp(s.chain.entries[s.chain.at].Candidate.Provider)
	}
}

// portable returns items as the current provider may receive them: what
// other providers produced is sent without their reasoning or ids.
func (s *Session) portable(items []transport.Item) []transport.Item {
	if s.chain == nil || s.chain.portableUpTo == 0 {
		return items
	}
	n := min(s.chain.portableUpTo, len(items))
	return append(failover.Portable(items[:n]), items[n:]...)
}

// Notice is the one line both front ends show for the switch.
func (e ProviderSwitch) Notice() string {
	return fmt.Sprintf("Switching to %s (%s)", e.To, e.Reason)
}

// chainRestart makes the model the user chose (/model) the chain's first
// entry's and moves the session back to it, on its own client (its
// connection and sticky fallback kept). It runs under settingsMu.
func (s *Session) chainRestart() {
	ch := s.chain
	if ch == nil {
		return
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.entries[0].Candidate.Model = s.opts.Sampling.Model
	if ch.at != 0 {
		ch.portableUpTo = len(s.history)
		s.client = ch.entries[0].Client
	}
	ch.at = 0
}
