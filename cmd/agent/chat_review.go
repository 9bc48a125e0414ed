package main

import (
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/tools"
)

// warningLines are the configuration's warnings as the chat lists them.
func warningLines(ws []config.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// execTool is the app's exec_command tool, whose sessions /ps lists and
// /stop ends; a set without one gives an Exec with none running.
func execTool(a *app.App) *tools.Exec {
	if t, ok := a.Tools().Lookup("exec_command"); ok {
		if ex, ok := t.(*tools.Exec); ok {
			return ex
		}
	}
	return tools.NewExec(tools.ExecOptions{})
}
