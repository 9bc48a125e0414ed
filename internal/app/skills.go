package app

import (
	"fmt"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/skills"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// Skills are the skills of a session working in cwd (the repository's
// .agents/skills, the home's skills/, ~/.agents/skills) that [skills]
// leaves enabled, and the files skipped with why.
func (a *App) Skills(cwd string) ([]skills.Skill, []skills.Problem) {
	home := a.home
	if a.ignoreUserConfig {
		home = ""
	}
	return DiscoverSkills(a.cfg, home, a.env.Getenv("HOME"), cwd)
}

// DiscoverSkills are the skills of a session working in cwd, home being
// the agent home ("" for none) and userHome the user's, that cfg's
// [skills] leaves enabled, and the files skipped with why.
func DiscoverSkills(cfg config.Config, home, userHome, cwd string) ([]skills.Skill, []skills.Problem) {
	found, problems := skills.Discover(skills.Roots(home, userHome, cwd))
	var on []skills.Skill
	for _, s := range found {
		if cfg.Skills.SkillEnabled(s.Name, s.Path) {
			on = append(on, s)
		}
	}
	return on, problems
}

// withSkills lists the session's skills to the model (a new session: in
// its initial context, within the budget) and sends a skill's SKILL.md
// after a prompt naming it with $name.
func (a *App) withSkills(opts *session.Options, t *Thread) {
	list, problems := a.Skills(t.ws.Cwd)
	for _, p := range problems {
		opts.Notices = append(opts.Notices, "skills: "+p.String())
	}
	if len(list) == 0 {
		return
	}
	if t.Recorded == nil && a.cfg.Skills.IncludeInstructions {
		budget, bound := skills.Budget(a.cfg.ContextWindow(a.cfg.Model)), "about 2% of the context window"
		if n := a.cfg.Skills.MaxContextTokens; n > 0 {
			budget, bound = int(min(n, 1<<28))*4, fmt.Sprintf("[skills] max_context_tokens = %d", n)
		}
		text, omitted := skills.Instructions(list, budget)
		opts.Context = append(opts.Context, transport.DeveloperMessage(text))
		if omitted > 0 {
			opts.Notices = append(opts.Notices, fmt.Sprintf("skills: %d of %d skills left out of the list the model sees (the list is bounded to %s); name one with $name to use it", omitted, len(list), bound))
		}
	}
	opts.PromptItems = func(prompt string) []transport.Item {
		var items []transport.Item
		for _, s := range skills.Mentioned(list, prompt) {
			msg, err := skills.Message(s)
			if err != nil {
				a.logger.Warn("skill", "path", s.Path, "err", err)
				continue
			}
			items = append(items, transport.UserMessage(msg))
		}
		return items
	}
}

// SkillLines are the chat's /skills: each skill's $name, description and
// file, and the files skipped.
func (a *App) SkillLines(cwd string) (names []string, body []string) {
	list, problems := a.Skills(cwd)
	for _, s := range list {
		names = append(names, s.Name)
		body = append(body, "$"+s.Name+"  "+s.Description, "  "+s.Path)
	}
	for _, p := range problems {
		body = append(body, "warning: "+p.String())
	}
	return names, body
}
