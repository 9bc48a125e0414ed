package tui_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tui"
)

// ExampleRun wires the chat to a session: the same Approver answers the
// session's approval requests and shows them in the chat.
func ExampleRun() {
	ctx := context.Background()
	var client *modelclient.Client // built as for agent exec
	approver := tui.NewApprover()
	newSession := func() *session.Session {
		return session.New(session.Options{Client: client, Approve: approver.Approve})
	}
	err := tui.Run(ctx, tui.Options{
		Engine:        newSession(),
		Approver:      approver,
		Model:         "gpt-5",
		Provider:      "openai",
		Transport:     "websocket",
		ContextWindow: 272_000,
		HistoryPath:   filepath.Join(os.Getenv("AGENT_HOME"), "history.jsonl"),
		NoColor:       os.Getenv("NO_COLOR") != "",
		Commands: tui.Commands{
			New: func(context.Context) (tui.Engine, error) { return newSession(), nil },
		},
	})
	if err != nil {
		os.Exit(1)
	}
}
