package main

import (
	"context"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/session"
)

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
