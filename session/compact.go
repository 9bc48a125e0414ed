package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/transport"
)

// SummaryPrompt asks the model for the handoff summary of a local
// compaction.
const SummaryPrompt = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another " +
	"LLM that will resume the task. Include the current progress and key decisions made, important context, " +
	"constraints and user preferences, what remains to be done (clear next steps), and any critical data, " +
	"examples or references needed to continue. Be concise and structured."

// SummaryPrefix introduces the summary in the compacted history.
const SummaryPrefix = "Another language model started to solve this problem and produced a summary of its " +
	"thinking process. Use it to continue the task; do not redo the work it describes.\n\n"

// keptUserTokens bounds the recent user messages a local compaction keeps.
const keptUserTokens = 20000

// Compacted reports a compaction.
type Compacted struct {
	// Remote says the server compacted; otherwise a local summary did.
	Remote bool
	// Before and After are the history lengths, in items.
	Before, After int
	// Summary is the local summary text ("" for a remote compaction).
	Summary string
}

func (Compacted) isEvent() {}

// CompactionRecorder is a [Recorder] that can also persist a compaction:
// the replacement history is recorded after the items it replaces, which
// stay in the file.
type CompactionRecorder interface {
	RecordCompacted(message string, replacement []transport.Item) error
}

// Compact shrinks the history: remotely (POST /responses/compact) where the
// provider supports it, else — or when that fails — by asking the model for
// a handoff summary and keeping the initial context, the recent user
// messages and the summary. On failure the history is left as it was.
//
// Compact runs between turns (a front end's /compact): it is a turn
// boundary, where a [Session.Configure] change applies.
func (s *Session) Compact(ctx context.Context, emit func(Event)) error {
	s.applySettings()
	return s.compact(ctx, emit)
}

// compact is [Session.Compact] within a turn.
func (s *Session) compact(ctx context.Context, emit func(Event)) error {
	before := len(s.history)
	var remoteErr error
	if s.client.SupportsRemoteCompaction() {
		items, err := s.client.Compact(ctx, s.prompt())
		if err == nil && len(items) > 0 {
			return s.replaceHistory(append(s.initialContext(), items...), Compacted{Remote: true, Before: before}, "remote compaction", emit)
		}
		if ctx.Err() != nil {
			return errors.Join(context.Cause(ctx), err)
		}
		remoteErr = err
		emit(Warning{Message: fmt.Sprintf("remote compaction failed (%v); summarising locally", err)})
	}
	summary, err := s.summarize(ctx, emit)
	if err != nil {
		return errors.Join(remoteErr, fmt.Errorf("local compaction: %w", err))
	}
	repl := append(s.initialContext(), s.recentUserMessages(keptUserTokens)...)
	repl = append(repl, transport.UserMessage(SummaryPrefix+summary))
	return s.replaceHistory(repl, Compacted{Before: before, Summary: summary}, summary, emit)
}

// summarize runs one sampling request with the summary prompt over the
// history, without recording anything into it.
func (s *Session) summarize(ctx context.Context, emit func(Event)) (string, error) {
	saved := s.history
	prompt := SummaryPrompt
	if s.opts.CompactPrompt != "" {
		prompt = s.opts.CompactPrompt
	}
	s.history = append(append([]transport.Item(nil), saved...), transport.UserMessage(prompt))
	rec := s.opts.Recorder
	s.opts.Recorder = nil // the summary exchange is not part of the conversation
	var summary strings.Builder
	quiet := func(ev Event) {
		if m, ok := ev.(MessageDone); ok {
			summary.WriteString(m.Text)
		}
		if r, ok := ev.(Retry); ok {
			emit(r)
		}
	}
	var retries int
	_, _, err := s.sample(ctx, s.client.NewBudgets(s.opts.UnboundedConnectionRetries, s.opts.ConnectionMaxWait), quiet, &retries)
	s.history, s.opts.Recorder = saved, rec
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(summary.String()) == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary.String(), nil
}

func (s *Session) replaceHistory(repl []transport.Item, c Compacted, message string, emit func(Event)) error {
	if cr, ok := s.opts.Recorder.(CompactionRecorder); ok {
		if err := cr.RecordCompacted(message, repl); err != nil {
			return fmt.Errorf("record the compaction: %w", err)
		}
		_ = s.opts.Recorder.Sync()
	}
	s.history = repl
	c.After = len(repl)
	emit(c)
	return nil
}

// compactable reports whether compaction could shrink the history: there
// is more than the initial context and the current user message.
func (s *Session) compactable() bool {
	return len(s.history)-len(s.initialContext()) > 1
}

// initialContext is the context recorded before the first user message.
func (s *Session) initialContext() []transport.Item {
	var out []transport.Item
	for _, it := range s.history {
		if it.Type == "message" && it.Role == "user" && !isContextMessage(it) {
			break
		}
		out = append(out, it)
	}
	return out
}

func isContextMessage(it transport.Item) bool {
	t := it.Text()
	return strings.HasPrefix(t, "<environment_context>") || strings.HasPrefix(t, "# AGENTS.md instructions for ")
}

// recentUserMessages returns the latest user messages (not context, not
// summaries) that fit in budget tokens, oldest first.
func (s *Session) recentUserMessages(budget int) []transport.Item {
	var picked []transport.Item
	for i := len(s.history) - 1; i >= 0; i-- {
		it := s.history[i]
		if it.Type != "message" || it.Role != "user" || isContextMessage(it) || strings.HasPrefix(it.Text(), SummaryPrefix) {
			continue
		}
		cost := (len(it.Text()) + 3) / 4
		if cost > budget {
			break
		}
		budget -= cost
		picked = append(picked, it)
	}
	for i, j := 0, len(picked)-1; i < j; i, j = i+1, j-1 {
		picked[i], picked[j] = picked[j], picked[i]
	}
	return picked
}
