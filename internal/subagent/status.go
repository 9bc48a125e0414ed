package subagent

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentcli/agent/tools"
)

// Status is a subagent's state, in Codex's words.
type Status string

// The statuses of a subagent.
const (
	PendingInit Status = "pending_init"
	Running     Status = "running"
	Completed   Status = "completed"
	Errored     Status = "errored"
	Interrupted Status = "interrupted"
	Shutdown    Status = "shutdown"
	NotFound    Status = "not_found"
)

// Final reports whether s is a status wait_agent returns on.
func (s Status) Final() bool {
	switch s {
	case Completed, Errored, Interrupted, Shutdown, NotFound:
		return true
	}
	return false
}

// Wait bounds of wait_agent (codex-rs multi_agents_common: default 30 s,
// at least 10 s, at most an hour).
const (
	DefaultWaitTimeout = 30 * time.Second
	MinWaitTimeout     = 10 * time.Second
	MaxWaitTimeout     = time.Hour
)

// Info is what front ends show of a subagent: a line per child in the
// chat, /agents, the collaboration items of exec --json and app-server.
type Info struct {
	ID, Parent string
	Nickname   string
	Role       string
	Depth      int
	Status     Status
	// Message is the last message of a completed turn, or why it failed.
	Message string
	// Task is the last input the agent was given.
	Task string
	// Path is the child's rollout file ("" when not recorded).
	Path string
}

// Label is how the chat and approvals name the agent: "Nickname (role)".
func (i Info) Label() string {
	name := cmp.Or(i.Nickname, shortID(i.ID))
	if i.Role != "" && i.Role != DefaultRole {
		return name + " (" + i.Role + ")"
	}
	return name
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// StatusJSON is a status as Codex's tools answer it: a string, or
// {"completed": message} / {"errored": reason}.
func StatusJSON(i Info) any {
	switch i.Status {
	case Completed:
		if i.Message == "" {
			return map[string]any{"completed": nil}
		}
		return map[string]any{"completed": i.Message}
	case Errored:
		return map[string]any{"errored": i.Message}
	}
	return string(i.Status)
}

// State is the agent's state in a collaboration call's record: exec's
// CollabAgentState, which has no "interrupted" (an interrupted agent is
// shut down for the turn).
func State(i Info) tools.CollabAgentState {
	st := tools.CollabAgentState{Status: string(i.Status)}
	if i.Status == Interrupted {
		st.Status = string(Shutdown)
	}
	if i.Message != "" {
		m := i.Message
		st.Message = &m
	}
	return st
}

// Input is a collaboration tool's message or items, as Codex takes them.
type Input struct {
	Message *string `json:"message"`
	Items   []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
		Path     string `json:"path"`
		Name     string `json:"name"`
	} `json:"items"`
}

// Text is the input as one prompt, or the error Codex answers with.
func (in Input) Text() (string, error) {
	switch {
	case in.Message != nil && in.Items != nil:
		//lint:ignore ST1005 Codex's error, word for word
		return "", errors.New("Provide either message or items, but not both")
	case in.Message == nil && in.Items == nil:
		//lint:ignore ST1005 Codex's error, word for word
		return "", errors.New("Provide one of: message or items")
	case in.Message != nil:
		if strings.TrimSpace(*in.Message) == "" {
			//lint:ignore ST1005 Codex's error, word for word
			return "", errors.New("Empty message can't be sent to an agent")
		}
		return *in.Message, nil
	}
	if len(in.Items) == 0 {
		//lint:ignore ST1005 Codex's error, word for word
		return "", errors.New("Items can't be empty")
	}
	var parts []string
	for _, it := range in.Items {
		switch it.Type {
		case "text":
			parts = append(parts, it.Text)
		case "local_image", "skill":
			parts = append(parts, "["+it.Type+": "+it.Path+"]")
		case "image":
			parts = append(parts, "[image: "+it.ImageURL+"]")
		case "mention":
			parts = append(parts, "["+cmp.Or(it.Name, it.Path)+"]("+it.Path+")")
		default:
			return "", fmt.Errorf("unknown item type %q (text, image, local_image, skill or mention)", it.Type)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// Narrower returns the narrower of two sandbox modes: a role's mode never
// widens its parent's ("" or an unknown mode keeps the parent's).
func Narrower(parent, role string) string {
	rank := map[string]int{"read-only": 0, "workspace-write": 1, "danger-full-access": 2}
	r, ok := rank[role]
	if p, known := rank[parent]; ok && known && r < p {
		return role
	}
	return parent
}
