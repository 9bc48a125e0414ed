package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"fmt"
	"strconv"
	"strings"

	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/rollout"
)

// agentLine is the transcript's line for a change of a subagent.
func agentLine(i subagent.Info) string {
	name := "agent " + i.Label()
	switch i.Status {
	case subagent.PendingInit:
		return name + " spawned"
	case subagent.Running:
		return name + " working: " + agentFirstLine(i.Task)
	case subagent.Completed:
		return name + " done: " + agentFirstLine(i.Message)
	case subagent.Errored:
		return name + " failed: " + agentFirstLine(i.Message)
	case subagent.Interrupted:
		return name + " interrupted"
	case subagent.Shutdown:
		return name + " closed"
	}
	return name + ": " + string(i.Status)
}

// agentFirstLine is s's first line, cut to 100 characters.
func agentFirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}

// agentsCmd is /agents: the subagents of the session, one line each;
// /agents N (or a nickname) shows that one's conversation, read from its
// recording.
func (m *Model) agentsCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.Agents == nil {
		return m.unavailable("/agents")
	}
	list := c.Agents()
	if len(list) == 0 {
		m.info("no subagents: the model spawns them (spawn_agent) when you ask for parallel or delegated work", nil)
		return nil
	}
	if arg == "" {
		body := make([]string, len(list))
		for i, a := range list {
			body[i] = fmt.Sprintf("  %d  %s  %s · %s", i+1, a.Label(), a.Status, clean(agentFirstLine(a.Task)))
		}
		m.info(fmt.Sprintf("%d subagents · /agents N shows one's conversation", len(list)), body)
		return nil
	}
	var pick *subagent.Info
	if n, err := strconv.Atoi(arg); err == nil && n >= 1 && n <= len(list) {
		pick = &list[n-1]
	}
	for i := range list {
		if pick == nil && strings.EqualFold(list[i].Nickname, arg) {
			pick = &list[i]
		}
	}
	if pick == nil {
		m.tr.add(&notice{level: levelWarn, text: "usage: /agents [N|NAME] (/agents lists them)"})
		return nil
	}
	if pick.Path == "" {
		m.info("agent "+pick.Label()+" is not recorded (ephemeral session)", nil)
		return nil
	}
	ro, err := rollout.Load(pick.Path)
	if err != nil {
		m.tr.add(&notice{level: levelWarn, text: "agent " + pick.Label() + ": " + err.Error()})
		return nil
	}
	var body []string
	for _, msg := range Transcript(ro) {
		for j, line := range strings.Split(strings.TrimSpace(msg.Text), "\n") {
			prefix := "    "
			if j == 0 {
				prefix = fmt.Sprintf("  %-9s ", msg.Role)
			}
			body = append(body, prefix+clean(line))
		}
	}
	m.info(fmt.Sprintf("agent %s · %s · session %s", pick.Label(), pick.Status, pick.ID), body)
	return nil
}
