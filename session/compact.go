package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session/hooks"
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
	return s.compactBy(ctx, "manual", emit)
}

// compact is [Session.Compact] within a turn: an automatic one.
func (s *Session) compact(ctx context.Context, emit func(Event)) error {
	return s.compactBy(ctx, "auto", emit)
}

// compactBy compacts between the PreCompact and PostCompact hooks of
// trigger (manual or auto).
func (s *Session) compactBy(ctx context.Context, trigger string, emit func(Event)) error {
	s.compactHooks(ctx, hooks.PreCompact, trigger, emit)
	err := s.compactNow(ctx, emit)
	if err == nil {
		s.compactHooks(ctx, hooks.PostCompact, trigger, emit)
	}
	return err
}

// compactNow is one compaction.
func (s *Session) compactNow(ctx context.Context, emit func(Event)) error {
	before := len(s.history)
	var remoteErr error
	if s.client.SupportsRemoteCompaction() {
		items, err := s.client.Compact(ctx, s.prompt(), s.sampling())
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
	sum := transport.UserMessage(SummaryPrefix + summary)
	sum.Origin = transport.OriginSummary
	repl = append(repl, sum)
	return s.replaceHistory(repl, Compacted{Before: before, Summary: summary}, summary, emit)
}

// summarize asks the model for the handoff summary in a request of its
// own: the history and the summary prompt, without tools (so the model
// cannot call one, and nothing runs while compacting) and without the
// output schema. Nothing is recorded into the history; the request's usage
// counts towards the session's.
func (s *Session) summarize(ctx context.Context, emit func(Event)) (string, error) {
	prompt := SummaryPrompt
	if s.opts.CompactPrompt != "" {
		prompt = s.opts.CompactPrompt
	}
	req := &modelclient.Prompt{
		Instructions: s.opts.Instructions,
		Input:        append(s.normalize(s.history), transport.UserMessage(prompt)),
	}
	var summary string
	o := s.newTurn().Sample(ctx, modelclient.Sampling{
		Prompt: func() *modelclient.Prompt { return req },
		Consume: func(_ context.Context, st transport.Stream) error {
			var text strings.Builder
			for ev := range st.Events() {
				switch ev := ev.(type) {
				case transport.Malformed: // the summary goes on without it, said
					emit(Warning{Message: ev.Message(), Raw: ev.Raw})
				case transport.OutputItemDone:
					if ev.Problem != nil {
						emit(Warning{Message: ev.Problem.Message(), Raw: ev.Problem.Raw})
					}
					if ev.Item.Type == "message" && ev.Item.Role == "assistant" {
						text.WriteString(ev.Item.Text())
					}
				case transport.Completed:
					if ev.Usage != nil {
						s.total.Add(*ev.Usage)
					}
					summary = text.String()
					return nil
				}
			}
			if err := st.Err(); err != nil {
				return err
			}
			return transport.ErrIncomplete
		},
		Retry:    func(r modelclient.Retry) { emit(Retry{r}) },
		Fallback: func(f modelclient.Fallback) { emit(Warning{Message: f.Message()}) },
	})
	if o != nil {
		return "", o
	}
	if strings.TrimSpace(summary) == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary, nil
}

func (s *Session) replaceHistory(repl []transport.Item, c Compacted, message string, emit func(Event)) error {
	if cr, ok := s.opts.Recorder.(CompactionRecorder); ok {
		// A compaction that cannot be recorded still shrinks the history
		// in memory; the user is told the session is no longer saved.
		s.noteSave(cr.RecordCompacted(message, repl))
		s.sync()
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
		if it.Origin != transport.OriginContext {
			break
		}
		out = append(out, it)
	}
	return out
}

// recentUserMessages returns the latest user messages (not context, not
// summaries) that fit in budget tokens, oldest first.
func (s *Session) recentUserMessages(budget int) []transport.Item {
	var picked []transport.Item
	for i := len(s.history) - 1; i >= 0; i-- {
		it := s.history[i]
		if it.Type != "message" || it.Role != "user" || it.Origin != "" {
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
