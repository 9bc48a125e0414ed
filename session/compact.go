package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// DefaultKeepToolCalls is how many of the latest tool calls (with their
// outputs and the steps between them) a local compaction keeps verbatim
// when [Options].CompactKeepToolCalls is zero.
const DefaultKeepToolCalls = 5

// keptStepTokens bounds the latest steps a local compaction keeps
// verbatim: fewer calls are kept when their items are larger, so a
// compaction always frees the window.
const keptStepTokens = 40000

// FilesTouchedHeader introduces the list of files the session's patches
// and commands touched (those its checkpoints saw change), after the
// summary of a local compaction.
const FilesTouchedHeader = "Files touched in this session (by patches and commands):"

// patchesTouchedHeader is the header summaries had before commands' writes
// were listed, still read from a resumed session's summary.
const patchesTouchedHeader = "Files touched in this session (by patches):"

// ErrNothingToCompact is a compaction refused because it could not
// shrink the history: all of it would be kept verbatim but one item or
// none. No request is sent.
var ErrNothingToCompact = errors.New("nothing to compact: the history holds only the context, the task and the latest steps")

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
	if !s.selectKept().worth(trigger == "manual") {
		return ErrNothingToCompact
	}
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
	sel := s.selectKept()
	text := SummaryPrefix + summary
	if len(sel.files) > 0 {
		text += "\n\n" + FilesTouchedHeader + "\n- " + strings.Join(sel.files, "\n- ")
	}
	sum := transport.UserMessage(text)
	sum.Origin = transport.OriginSummary
	repl := sel.replacement(s.history, sum)
	return s.replaceHistory(repl, Compacted{Before: before, Summary: summary}, summary, emit)
}

// summarize asks the model for the handoff summary in a request of its
// own ([Session.ask]): the history and the summary prompt. Nothing is
// recorded into the history; the request's usage counts towards the
// session's.
func (s *Session) summarize(ctx context.Context, emit func(Event)) (string, error) {
	prompt := SummaryPrompt
	if s.opts.CompactPrompt != "" {
		prompt = s.opts.CompactPrompt
	}
	summary, _, err := s.ask(ctx, append(s.normalize(s.history), transport.UserMessage(prompt)), emit)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(summary) == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary, nil
}

// ask sends input in a request of its own, with the session's
// instructions but without tools (so the model cannot call one, and
// nothing runs) and without the output schema, through the session's
// client: its retries and its retry gate apply. It returns the assistant's
// text and its message items; nothing is recorded into the history, and
// the request's usage counts towards the session's.
func (s *Session) ask(ctx context.Context, input []transport.Item, emit func(Event)) (string, []transport.Item, error) {
	req := &modelclient.Prompt{Instructions: s.opts.Instructions, Input: input}
	var answer string
	var items []transport.Item
	o := s.newTurn().Sample(ctx, modelclient.Sampling{
		Prompt: func() *modelclient.Prompt { return req },
		Consume: func(_ context.Context, st transport.Stream) error {
			var text strings.Builder
			items = items[:0]
			for ev := range st.Events() {
				switch ev := ev.(type) {
				case transport.Malformed: // the answer goes on without it, said
					emit(Warning{Message: ev.Message(), Raw: ev.Raw})
				case transport.OutputItemDone:
					if ev.Problem != nil {
						emit(Warning{Message: ev.Problem.Message(), Raw: ev.Problem.Raw})
					}
					if ev.Item.Type == "message" && ev.Item.Role == "assistant" {
						text.WriteString(ev.Item.Text())
						items = append(items, ev.Item)
					}
				case transport.Completed:
					if ev.Usage != nil {
						s.total.Add(*ev.Usage)
					}
					answer = text.String()
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
		return "", nil, o
	}
	return answer, items, nil
}

func (s *Session) replaceHistory(repl []transport.Item, c Compacted, message string, emit func(Event)) error {
	if cr, ok := s.opts.Recorder.(CompactionRecorder); ok {
		// A compaction that cannot be recorded still shrinks the history
		// in memory; the user is told the session is no longer saved.
		s.noteSave(cr.RecordCompacted(message, repl))
		s.sync()
	}
	s.beforeCompaction, s.startsBeforeCompaction = s.history[:len(s.history):len(s.history)], s.turnStarts
	s.turnStarts = make([]int, len(s.turnStarts))
	for i := range s.turnStarts {
		s.turnStarts[i] = -1
	}
	s.history = repl
	c.After = len(repl)
	emit(c)
	return nil
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

// kept is what a local compaction keeps of the history verbatim.
type kept struct {
	keep []bool // by history index
	// tail is where the latest steps begin: the summary goes before
	// them, after the older items kept (context, the user's messages,
	// the plan).
	tail int
	// summarised counts the items the summary replaces, tokens their
	// estimated size.
	summarised, tokens int
	// files are the paths the session's patches touched, in order.
	files []string
}

// summaryTokens is about the size of a handoff summary.
const summaryTokens = 1000

// worth reports whether compacting shrinks the history. An automatic
// compaction (the window is filling up) replaces any item; one the user
// asks for (/compact) at least two, or one larger than a summary: else
// the history would come out as long as it went in.
func (k kept) worth(manual bool) bool {
	if manual {
		return k.summarised >= 2 || k.tokens > summaryTokens
	}
	return k.summarised >= 1
}

// replacement is the compacted history: the items kept, with sum before
// the latest steps.
func (k kept) replacement(history []transport.Item, sum transport.Item) []transport.Item {
	out := make([]transport.Item, 0, len(history)-k.summarised+1)
	for i, it := range history {
		if i == k.tail {
			out = append(out, sum)
		}
		if k.keep[i] {
			out = append(out, it)
		}
	}
	if k.tail >= len(history) {
		out = append(out, sum)
	}
	return out
}

// selectKept chooses what a local compaction keeps verbatim: the session
// context (environment, AGENTS.md), the user's messages (the latest that
// fit in keptUserTokens), the plan (update_plan's last call and output),
// and the latest steps: everything from the CompactKeepToolCalls-th last
// tool call on, within keptStepTokens, each output with its call. A
// previous summary is never kept: the new one replaces it.
func (s *Session) selectKept() kept {
	h := s.history
	k := kept{keep: make([]bool, len(h)), tail: len(h)}
	callAt := make(map[string]int)
	for i, it := range h {
		if it.IsCall() {
			callAt[it.CallID] = i
		}
	}
	// The latest steps.
	n := s.opts.CompactKeepToolCalls
	if n == 0 {
		n = DefaultKeepToolCalls
	}
	budget, calls := keptStepTokens, 0
	for i := len(h) - 1; i >= 0 && calls < n; i-- {
		if budget -= itemTokens(h[i]); budget < 0 {
			break
		}
		if h[i].IsCall() {
			calls++
			k.tail = i
		}
	}
	// An output kept needs its call: the tail reaches back to it.
	for moved := true; moved; {
		moved = false
		for i := k.tail; i < len(h); i++ {
			if c, ok := callAt[h[i].CallID]; ok && h[i].IsCallOutput() && c < k.tail {
				k.tail, moved = c, true
			}
		}
	}
	for i := k.tail; i < len(h); i++ {
		k.keep[i] = true
	}
	// The context, the user's messages and the plan.
	userBudget := keptUserTokens
	plan := ""
	for i := len(h) - 1; i >= 0 && plan == ""; i-- {
		if h[i].IsCall() && h[i].Name == "update_plan" {
			plan = h[i].CallID
		}
	}
	for i := len(h) - 1; i >= 0; i-- {
		it := h[i]
		switch {
		case it.Origin == transport.OriginContext:
			k.keep[i] = true
		case it.Type == "message" && it.Role == "user" && (it.Origin == "" || it.Origin == transport.OriginSteer):
			if cost := (len(it.Text()) + 3) / 4; cost <= userBudget {
				userBudget -= cost
				k.keep[i] = true
			} else {
				userBudget = 0 // older ones are summarised
			}
		case plan != "" && it.CallID == plan && (it.IsCall() || it.IsCallOutput()):
			k.keep[i] = true
		}
		if it.Origin == transport.OriginSummary {
			k.keep[i] = false
		}
	}
	for i, it := range h {
		if !k.keep[i] {
			k.summarised++
			k.tokens += itemTokens(it)
		}
		k.files = touchedFiles(k.files, it)
	}
	for _, p := range s.written {
		if !slices.Contains(k.files, p) {
			k.files = append(k.files, p)
		}
	}
	return k
}

// itemTokens estimates an item's tokens: four bytes each.
func itemTokens(it transport.Item) int { return (len(it.Raw) + 3) / 4 }

// touchedFiles adds to files, once each, the paths an apply_patch call
// names, or those a previous summary listed.
func touchedFiles(files []string, it transport.Item) []string {
	add := func(p string) {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	switch {
	case it.Origin == transport.OriginSummary:
		_, list, ok := strings.Cut(it.Text(), "\n"+FilesTouchedHeader+"\n")
		if !ok {
			_, list, ok = strings.Cut(it.Text(), "\n"+patchesTouchedHeader+"\n")
		}
		if ok {
			for _, l := range strings.Split(list, "\n") {
				add(strings.TrimPrefix(l, "- "))
			}
		}
	case it.IsCall() && it.Name == "apply_patch":
		text := it.Input
		if it.Type == "function_call" {
			var args struct {
				Input string `json:"input"`
			}
			if json.Unmarshal([]byte(it.Arguments), &args) != nil {
				return files
			}
			text = args.Input
		}
		for _, l := range strings.Split(text, "\n") {
			for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if rest, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), p); ok {
					add(rest)
				}
			}
		}
	}
	return files
}
