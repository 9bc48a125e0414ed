// Package failover is what a turn needs to move to another provider when
// its own fails for good: the health memory of providers (which failed,
// and until when to skip them, shared by every agent process through a
// directory) and the conversion of a recorded history into one any
// provider accepts.
//
// It decides nothing about retries: the retry engine says when a failure
// is final; failover only says where to go next.
package failover

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/transport"
)

// Candidate is one place a turn can run: a provider id and the model's
// slug there. The first candidate of a chain is the configured provider.
type Candidate struct {
	Provider string
	Model    string
}

func (c Candidate) String() string { return c.Provider + "/" + c.Model }

// DefaultCooldown is how long a provider that failed without saying when
// to come back is skipped.
const DefaultCooldown = 5 * time.Minute

// Health is the memory of which providers failed and until when each is
// skipped. Its state is one small file per provider, beside the provider's
// machine-wide retry gate (AGENT_HOME/retrygate/<provider>/down), so every
// process sharing AGENT_HOME (and the next run) sees it; the file holds the
// time the provider may be tried again, kept as the gate keeps its
// cooldown ([gate.ExtendDeadline]).
type Health struct {
	home string
	now  func() time.Time
}

// NewHealth returns the health memory kept under home (AGENT_HOME); now
// reads the wall clock (nil: time.Now). An empty home keeps nothing.
func NewHealth(home string, now func() time.Time) *Health {
	if now == nil {
		now = time.Now
	}
	return &Health{home: home, now: now}
}

func (h *Health) path(provider string) string {
	return filepath.Join(gate.DirFor(h.home, provider), "down")
}

// MarkDown records that provider failed: it is skipped until now+d (d ≤ 0:
// [DefaultCooldown]). A later time already recorded is kept.
func (h *Health) MarkDown(ctx context.Context, provider string, d time.Duration) error {
	if d <= 0 {
		d = DefaultCooldown
	}
	return h.MarkDownUntil(ctx, provider, h.now().Add(d))
}

// MarkDownUntil records that provider failed and is skipped until the
// time the server gave (a usage limit's reset). A later time already
// recorded is kept.
func (h *Health) MarkDownUntil(ctx context.Context, provider string, until time.Time) error {
	if h == nil || h.home == "" {
		return nil
	}
	if err := gate.ExtendDeadline(ctx, h.path(provider), until); err != nil {
		return fmt.Errorf("provider health: %w", err)
	}
	return nil
}

// MarkUp forgets provider's failure: it answered.
func (h *Health) MarkUp(provider string) {
	if h == nil || h.home == "" {
		return
	}
	os.Remove(h.path(provider))
}

// DownUntil returns when provider may be tried again; the zero time when
// it is not known to be down. An unreadable record counts as not down.
func (h *Health) DownUntil(provider string) time.Time {
	if h == nil || h.home == "" {
		return time.Time{}
	}
	return gate.ReadDeadline(h.path(provider))
}

// Down reports whether provider is in its cooldown now.
func (h *Health) Down(provider string) bool {
	return h.now().Before(h.DownUntil(provider))
}

// Choose returns the index of the first candidate of chain whose provider
// is not in a cooldown, starting at from. When every remaining one is, it
// returns the one whose cooldown ends first: it is probed with the next
// real request. ok is false when from is past the end.
func (h *Health) Choose(chain []Candidate, from int) (i int, ok bool) {
	if from >= len(chain) {
		return 0, false
	}
	best, bestAt := from, time.Time{}
	for j := from; j < len(chain); j++ {
		until := h.DownUntil(chain[j].Provider)
		if !h.now().Before(until) {
			return j, true
		}
		if bestAt.IsZero() || until.Before(bestAt) {
			best, bestAt = j, until
		}
	}
	return best, true
}

// Portable returns history in a form any provider accepts: reasoning items
// are dropped (their encrypted content can only be read by the provider
// that produced it), and the ids other items got from their provider are
// removed (ids mean nothing elsewhere); messages, tool calls and their
// outputs are carried unchanged. history itself is not modified.
func Portable(history []transport.Item) []transport.Item {
	out := make([]transport.Item, 0, len(history))
	for _, it := range history {
		if it.Type == "reasoning" {
			continue
		}
		if it.ID != "" && len(it.Raw) > 0 {
			var m map[string]json.RawMessage
			if json.Unmarshal(it.Raw, &m) == nil {
				delete(m, "id")
				if raw, err := json.Marshal(m); err == nil {
					it.Raw = raw
				}
			}
		}
		it.ID = ""
		out = append(out, it)
	}
	return out
}
