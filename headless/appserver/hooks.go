package appserver

import (
	"strings"

	"github.com/agentcli/agent/session"
)

// hook tells the thread's clients of a hook's run, as Codex's
// hook/completed notification (its HookRunSummary), and of a hook that
// stopped the turn, as a warning.
func (tu *turn) hook(ev session.Event) {
	th := tu.th
	switch ev := ev.(type) {
	case session.HookRun:
		// A subagent's hook ran in its own thread, as Codex says it.
		thread := th.id
		if ev.AgentID != "" {
			thread = ev.AgentID
		}
		th.broadcast("hook/completed", map[string]any{"threadId": thread, "turnId": tu.id, "run": tu.hookRun(ev)})
	case session.HookStopped:
		th.broadcast("warning", map[string]any{"threadId": th.id, "message": ev.Notice()})
	}
}

// hookRun is one run as Codex's HookRunSummary: its event in camelCase,
// its status, and entries saying why (the error of a failure, the
// feedback of a block, the reason of a stop, the hook's systemMessage).
// The id is the hook's key in [hooks.state].
func (tu *turn) hookRun(ev session.HookRun) map[string]any {
	r := ev.Run
	event := string(ev.Event)
	entries := []map[string]any{}
	if r.Message != "" {
		kind := map[string]string{"failed": "error", "blocked": "feedback", "stopped": "stop"}[string(r.Status)]
		if kind == "" {
			kind = "warning"
		}
		entries = append(entries, map[string]any{"kind": kind, "text": r.Message})
	}
	if r.SystemMessage != "" {
		entries = append(entries, map[string]any{"kind": "warning", "text": r.SystemMessage})
	}
	scope := "turn"
	if event == "SessionStart" || event == "SubagentStart" || event == "SessionEnd" {
		scope = "thread"
	}
	mode := "sync"
	if r.Hook.Async {
		mode = "async"
	}
	source := map[string]string{"user": "user", "project": "project", "session-flags": "sessionFlags"}[string(r.Hook.Source)]
	if source == "" {
		source = "unknown"
	}
	var statusMessage any
	if r.Hook.StatusMessage != "" {
		statusMessage = r.Hook.StatusMessage
	}
	end := tu.now()
	return map[string]any{"id": r.Hook.Key, "eventName": strings.ToLower(event[:1]) + event[1:], "handlerType": "command",
		"executionMode": mode, "scope": scope, "sourcePath": r.Hook.Path, "source": source, "displayOrder": r.Hook.Order,
		"status": string(r.Status), "statusMessage": statusMessage, "startedAt": end.Add(-r.Duration).Unix(),
		"completedAt": end.Unix(), "durationMs": r.Duration.Milliseconds(), "entries": entries}
}
