package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/headless/appserver"
	"github.com/agentcli/agent/internal/exitcode"
)

// runExecRemote is agent exec --remote: the turn runs on an app-server
// (agent's or Codex's) on a new thread under the never approval policy;
// the final message goes to stdout, commands, retries and warnings to
// stderr, as exec prints its own turns.
func runExecRemote(ctx context.Context, env Env, g *globalFlags, f *execFlags, args []string) error {
	if f.json || f.lastMessage != "" || f.outputSchema != "" || len(f.images) > 0 {
		return usageError(errors.New("--remote runs a plain turn: --json, -o, --output-schema and --image are not supported with it"))
	}
	prompt, err := headless.ReadPrompt(env.Stdin, env.StdinTTY, args)
	if err != nil {
		return usageError(err)
	}
	var token string
	if f.remoteTokenEnv != "" {
		if token = env.Getenv(f.remoteTokenEnv); token == "" {
			return usageError(fmt.Errorf("--remote-auth-token-env %s: the variable is empty or unset", f.remoteTokenEnv))
		}
	}
	r, err := appserver.DialRemote(ctx, f.remote, token, "agent_exec", version)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	defer r.Close()
	var last string
	res, err := r.Turn(ctx, appserver.RemoteTurn{Prompt: prompt, Cwd: f.cd, Model: g.model, Sandbox: f.sandbox}, func(n appserver.Notification) {
		printRemote(env, n, &last)
	})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("app-server %s: %w", f.remote, err)}
	}
	switch res.Status {
	case "completed":
		fmt.Fprintln(env.Stdout, last)
		return nil
	case "interrupted":
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("the turn was interrupted")}
	}
	return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("the turn failed: %s", res.Error)}
}

// printRemote prints one notification of a remote turn: commands, retries
// and warnings on stderr; the last completed message is kept for stdout.
func printRemote(env Env, n appserver.Notification, last *string) {
	switch n.Method {
	case "thread/started":
		var p struct {
			Thread struct {
				ID string `json:"id"`
			} `json:"thread"`
		}
		if json.Unmarshal(n.Params, &p) == nil {
			fmt.Fprintf(env.Stderr, "thread id: %s\n", p.Thread.ID)
		}
	case "item/completed":
		var p struct {
			Item struct {
				Type             string  `json:"type"`
				Text             string  `json:"text"`
				Command          string  `json:"command"`
				ExitCode         *int    `json:"exitCode"`
				AggregatedOutput *string `json:"aggregatedOutput"`
				Status           string  `json:"status"`
			} `json:"item"`
		}
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		switch it := p.Item; it.Type {
		case "agentMessage":
			*last = it.Text
		case "commandExecution":
			fmt.Fprintf(env.Stderr, "exec %s: %s", it.Command, it.Status)
			if it.ExitCode != nil {
				fmt.Fprintf(env.Stderr, " (exit %d)", *it.ExitCode)
			}
			fmt.Fprintln(env.Stderr)
		case "fileChange":
			fmt.Fprintf(env.Stderr, "patch: %s\n", it.Status)
		}
	case "error", "warning":
		var p struct {
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
			WillRetry bool `json:"willRetry"`
		}
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		switch {
		case p.Message != "":
			fmt.Fprintln(env.Stderr, "warning: "+p.Message)
		case p.WillRetry:
			fmt.Fprintln(env.Stderr, p.Error.Message)
		default:
			fmt.Fprintln(env.Stderr, "ERROR: "+p.Error.Message)
		}
	}
}
