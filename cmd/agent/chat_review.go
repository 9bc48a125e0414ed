package main

import (
	"context"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// execTool is the engine's exec_command tool, whose sessions /ps lists
// and /stop ends; a set without one gives an Exec with none running.
func execTool(e *engine) *tools.Exec {
	if t, ok := e.tools.Lookup("exec_command"); ok {
		if ex, ok := t.(*tools.Exec); ok {
			return ex
		}
	}
	return tools.NewExec(tools.ExecOptions{})
}

// Review implements tui.Reviewer: a review turn on the session in use,
// recorded as a review.
func (s *switchboard) Review(ctx context.Context, target, request string, emit func(session.Event)) error {
	cur, _ := s.current()
	return cur.Review(ctx, target, request, emit)
}

// warningLines are the configuration's warnings as the chat lists them.
func warningLines(ws []config.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}
