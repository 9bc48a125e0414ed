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
	t := c.cur
	m := t.ws.Sandbox.Mode
	if mode != "" {
		if m, err = sandbox.ParseMode(mode); err != nil {
			return "", err
		}
	}
	ws := t.ws
	ws.Policy, ws.Sandbox.Mode = policy, m
	set := t.tools
	ended := ""
	if m != t.ws.Sandbox.Mode {
		if set, err = ws.tools(); err != nil {
			return "", err
		}
		if c.a.mcpServers != nil {
			set.AddSource(c.a.mcpServers.Tools)
		}
		old := t.tools
		if n := len(execOf(old).Running()); n > 0 {
			ended = fmt.Sprintf("; %d background commands started under %s end at the next turn", n, t.ws.Sandbox.Mode)
		}
		t.retired = append(t.retired, old)
		t.closers = append(t.closers, func() { set.Close() })
	}
	t.ws, t.tools = ws, set
	c.spec.ApprovalPolicy, c.spec.Sandbox = policy, string(m)
	env := ws.environment(c.a.env.now())
	t.Configure(func(st *session.Settings) {
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
	return c.cur.tools
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
