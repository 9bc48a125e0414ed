package app

import (
	"fmt"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
)

// SetPermissions is /permissions with a preset: the approval policy and
// the sandbox of the model's commands and patches (mode; "" keeps it), for
// the session in use from its next turn on and for later sessions. A sandbox other than the
// one in force means new tools: the workspace's, built again under it (the
// agent home still hidden and read-only), with the MCP servers' tools; the
// tools they replace are closed at the next turn boundary, ending the
// commands left running under the old sandbox. The model is told of the
// change in an environment context added to the history then.
func (c *Chat) SetPermissions(policy, mode string) (string, error) {
	policy, err := tools.ParsePolicy(policy)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.a
	m := a.ws.Sandbox.Mode
	if mode != "" {
		if m, err = sandbox.ParseMode(mode); err != nil {
			return "", err
		}
	}
	ws := a.ws
	ws.Policy, ws.Sandbox.Mode = policy, m
	initial, err := ws.context(a.cfg, a.home, a.env.now()) // what a /new session is told
	if err != nil {
		return "", err
	}
	set := a.tools
	ended := ""
	if m != a.ws.Sandbox.Mode {
		if set, err = ws.tools(); err != nil {
			return "", err
		}
		if a.mcpServers != nil {
			set.AddSource(a.mcpServers.Tools)
		}
		old := a.tools
		if n := len(execOf(old).Running()); n > 0 {
			ended = fmt.Sprintf("; %d background commands started under %s end at the next turn", n, a.ws.Sandbox.Mode)
		}
		a.retiredTools = append(a.retiredTools, old)
		a.closers = append(a.closers, func() { old.Close() })
	}
	a.ws, a.tools, a.opts.Tools, a.opts.ApprovalPolicy, a.opts.Context = ws, set, set, policy, initial
	env := ws.environment(a.env.now())
	c.cur.Configure(func(st *session.Settings) {
		st.ApprovalPolicy, st.Tools = policy, set
		st.Context = append(st.Context[:0:0], env)
	})
	return fmt.Sprintf("approval policy: %s · sandbox: %s, from the next turn%s", policy, m, ended), nil
}

// Background lists the commands the model left running (/ps).
func (c *Chat) Background() []tools.Background { return execOf(c.toolSet()).Running() }

// Stop ends the background command id (every one when id is negative)
// and says how many it ended (/stop).
func (c *Chat) Stop(id int) int { return execOf(c.toolSet()).Stop(id) }

// toolSet is the tools the chat's turns run with from the next one on.
func (c *Chat) toolSet() *tools.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.a.tools
}

// execOf is set's exec_command tool; a set without one gives an Exec with
// none running.
func execOf(set *tools.Set) *tools.Exec {
	if t, ok := set.Lookup("exec_command"); ok {
		if ex, ok := t.(*tools.Exec); ok {
			return ex
		}
	}
	return tools.NewExec(tools.ExecOptions{})
}

// closeRetiredTools closes the tools [Chat.SetPermissions] replaced.
func (a *App) closeRetiredTools() {
	for _, s := range a.retiredTools {
		s.Close()
	}
	a.retiredTools = nil
}
