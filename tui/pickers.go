package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/tools"
)

// openModelPicker is /model: the models the provider offers, the current
// one marked; a model with reasoning efforts is followed by a picker of
// them. The choice applies from the next turn on.
func (m *Model) openModelPicker() tea.Cmd {
	if m.opts.Commands.Model == nil {
		m.info("model: "+orNone(m.opts.Model), nil)
		return nil
	}
	list := m.opts.Commands.Models
	current := m.opts.Model
	p := &picker{title: "Choose a model (from the next turn on)", choose: func(m *Model, it pickItem) tea.Cmd {
		return m.chooseModel(it)
	}}
	return m.loadPicker(p, func(ctx context.Context) ([]pickItem, error) {
		var choices []ModelChoice
		if list != nil {
			var err error
			if choices, err = list(ctx); err != nil {
				return nil, err
			}
		}
		return modelItems(choices, current), nil
	})
}

// modelItems are the picker's rows: choices, and the current model when
// they do not have it. A model's efforts travel in its search text's
// pickItem value as "NAME\tEFFORT,EFFORT".
func modelItems(choices []ModelChoice, current string) []pickItem {
	var items []pickItem
	seen := false
	for _, c := range choices {
		detail := c.Description
		if len(c.Efforts) > 0 {
			detail = strings.TrimSpace(detail + " · effort: " + strings.Join(c.Efforts, ", "))
			detail = strings.TrimPrefix(detail, "· ")
		}
		items = append(items, pickItem{listRow: listRow{label: c.Name, detail: detail, mark: c.Name == current},
			value: c.Name + "\t" + strings.Join(c.Efforts, ",")})
		seen = seen || c.Name == current
	}
	if !seen && current != "" {
		items = append([]pickItem{{listRow: listRow{label: current, detail: "configured", mark: true}, value: current}}, items...)
	}
	return items
}

// chooseModel applies the chosen model, or asks for its reasoning effort.
func (m *Model) chooseModel(it pickItem) tea.Cmd {
	name, efforts, _ := strings.Cut(it.value, "\t")
	if efforts == "" {
		return m.switchModel(name, "")
	}
	p := &picker{title: "Reasoning effort for " + name, choose: func(m *Model, it pickItem) tea.Cmd {
		return m.switchModel(name, it.value)
	}}
	for _, e := range strings.Split(efforts, ",") {
		p.items = append(p.items, pickItem{listRow: listRow{label: e, mark: e == m.effort}, value: e})
	}
	m.openPicker(p)
	return nil
}

// openPermissionsPicker is /permissions: the presets, each saying what it
// allows.
func (m *Model) openPermissionsPicker() tea.Cmd {
	p := &picker{title: "Choose what agent may do", choose: func(m *Model, it pickItem) tea.Cmd {
		return m.setPermissions(it.value)
	}}
	var sandbox, policy string
	if f := m.opts.Commands.Permissions; f != nil {
		sandbox, policy = f()
	}
	for _, pr := range tools.ApprovalPresets() {
		cur := pr.Sandbox == sandbox && pr.Policy == policy
		p.items = append(p.items, pickItem{listRow: listRow{label: pr.Label, detail: pr.Allows, mark: cur}, value: pr.ID,
			search: pr.Label + " " + pr.ID})
	}
	m.openPicker(p)
	return nil
}

// openResumePicker is /resume without an id: this directory's sessions
// (every directory's with all), newest first, the running one left out;
// Tab toggles all.
func (m *Model) openResumePicker(all bool) tea.Cmd {
	list := m.opts.Commands.Sessions
	running := ""
	if f := m.opts.SessionID; f != nil {
		running = f()
	}
	now := m.now()
	title, hint := "Resume a session of this directory", "all directories"
	if all {
		title, hint = "Resume a session (all directories)", "this directory only"
	}
	p := &picker{title: title, tabHint: hint,
		choose: func(m *Model, it pickItem) tea.Cmd { return m.resumeID(it.value) },
		toggle: func(m *Model) tea.Cmd { return m.openResumePicker(!all) }}
	return m.loadPicker(p, func(ctx context.Context) ([]pickItem, error) {
		infos, err := list(ctx, all)
		if err != nil {
			return nil, err
		}
		var items []pickItem
		for _, s := range infos {
			if s.ID == running || s.Title == "" {
				continue // the chat itself, or nothing to resume
			}
			title := s.Title
			detail := ago(now.Sub(s.Updated))
			if all {
				detail += " · " + s.Cwd
			}
			items = append(items, pickItem{listRow: listRow{label: clean(title), detail: detail}, value: s.ID,
				search: title + " " + s.ID})
		}
		return items, nil
	})
}

// ago says how long ago d was, roughly.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
