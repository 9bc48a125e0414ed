package acp

import (
	"context"
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/rollout"
	engine "github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// replay sends a loaded session's conversation as session/update
// notifications, as session/load asks: each of the user's messages as a
// user_message_chunk, then what the turn holds in the recorded history:
// the assistant's messages as agent_message_chunks and its tool calls as
// tool_call notifications, completed with their output (failed when the
// turn ended before the call had one), plans as plan updates. A turn
// compacted out of the history replays its messages only.
func (se *session) replay(ctx context.Context) error {
	ro := se.t.Recorded
	if ro == nil {
		return nil
	}
	hist := conversation(ro.History)
	spans := turnSpans(ro.Events, hist)
	declined := map[string]bool{}
	for _, e := range ro.Ledger {
		declined[e.CallID] = e.State == string(engine.CallDeclined)
	}
	fromHistory := false
	for i, ev := range ro.Events {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch ev.Type {
		case rollout.EventUserMessage:
			se.update(sdk.UpdateUserMessageText(ev.Message))
			var span [2]int
			span, fromHistory = spans[i]
			if fromHistory {
				se.replayItems(hist[span[0]:span[1]], declined)
			}
		case rollout.EventAgentMessage:
			if !fromHistory {
				se.update(sdk.UpdateAgentMessageText(ev.Message))
			}
		}
	}
	return ctx.Err()
}

// conversation is the history's conversation: the user's and the
// assistant's messages, tool calls and their outputs, without the session
// context, summaries and developer messages.
func conversation(hist []transport.Item) []transport.Item {
	var out []transport.Item
	for _, it := range hist {
		switch {
		case it.Origin == transport.OriginContext || it.Origin == transport.OriginSummary:
		case it.Type == "message" && (it.Role == "user" || it.Role == "assistant"):
			out = append(out, it)
		case it.IsCall() || it.IsCallOutput():
			out = append(out, it)
		}
	}
	return out
}

// turnSpans finds each user_message event's message in hist (matched from
// the end, since compaction drops the oldest turns) and gives, by event
// index, the items after it up to the next matched one.
func turnSpans(events []rollout.EventMsg, hist []transport.Item) map[int][2]int {
	spans := map[int][2]int{}
	end, j := len(hist), len(hist)-1
	for i := len(events) - 1; i >= 0 && j >= 0; i-- {
		if events[i].Type != rollout.EventUserMessage {
			continue
		}
		for ; j >= 0; j-- {
			it := hist[j]
			if it.Type == "message" && it.Role == "user" && strings.Contains(it.Text(), events[i].Message) {
				spans[i] = [2]int{j + 1, end}
				end = j
				j--
				break
			}
		}
	}
	return spans
}

// replayItems sends one recorded turn's assistant messages and tool calls.
// declined are the calls the user refused.
func (se *session) replayItems(items []transport.Item, declined map[string]bool) {
	outputs := map[string]transport.Item{}
	for _, it := range items {
		if it.IsCallOutput() {
			outputs[it.CallID] = it
		}
	}
	for _, it := range items {
		switch {
		case it.Type == "message" && it.Role == "assistant":
			if text := it.Text(); text != "" {
				se.update(sdk.UpdateAgentMessageText(text))
			}
		case it.IsCall():
			out, done := outputs[it.CallID]
			se.replayCall(it, out, done && !declined[it.CallID])
		}
	}
}

// replayCall sends one recorded tool call, ended: a plan as a plan
// update, any other call as a tool_call with its output, failed unless ok
// (and, for a command, unless it exited 0).
func (se *session) replayCall(it, out transport.Item, ok bool) {
	c := tools.Call{ID: it.CallID, Name: it.Name, Input: it.Arguments, Custom: it.Type == "custom_tool_call"}
	if c.Custom {
		c.Input = it.Input
	}
	if c.Name == "update_plan" {
		var args struct {
			Plan []tools.PlanStep `json:"plan"`
		}
		if json.Unmarshal([]byte(c.Input), &args) == nil && len(args.Plan) > 0 {
			se.update(sdk.UpdatePlan(planEntries(args.Plan)...))
		}
		return
	}
	d := se.describe(c)
	text := out.OutputText()
	status := sdk.ToolCallStatusCompleted
	if !ok || (d.kind == sdk.ToolKindExecute && strings.Contains(text, "Process exited with code ") && !strings.Contains(text, "Process exited with code 0\n")) {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartStatus(status), sdk.WithStartKind(d.kind), sdk.WithStartRawInput(rawJSON(c.Input))}
	if len(d.paths) > 0 {
		var locs []sdk.ToolCallLocation
		for _, p := range d.paths {
			locs = append(locs, sdk.ToolCallLocation{Path: p})
		}
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	if text != "" {
		shown := text
		if d.kind == sdk.ToolKindExecute {
			shown = "```\n" + strings.TrimSuffix(text, "\n") + "\n```"
		}
		opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(shown))}), sdk.WithStartRawOutput(map[string]any{"output": text}))
	}
	se.update(sdk.StartToolCall(sdk.ToolCallId(c.ID), d.title, opts...))
}
