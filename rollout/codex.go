package rollout

import (
	"encoding/json"
	"strings"
)

// Codex 0.169 and later record the user's and the assistant's messages as
// item_completed events holding a thread item, and no user_message or
// agent_message events; see testdata/codex. agent reads them as its own
// events, so a session Codex recorded lists with its first prompt and
// resumes with its transcript.
const eventItemCompleted EventType = "item_completed"

// userMessagePrefix is what Codex's rollouts before 0.40 put before the
// user's text in a user_message event; its pickers strip it.
const userMessagePrefix = "## My request for Codex:"

// codexItemEvent is the payload of Codex's item_completed event, as far as
// agent reads it.
type codexItemEvent struct {
	Item struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

// fromCodexItem converts Codex's item_completed event whose payload is
// raw into the user_message or agent_message event it stands for; ok is
// false for any other item.
func fromCodexItem(raw []byte) (ev EventMsg, ok bool) {
	var p codexItemEvent
	if json.Unmarshal(raw, &p) != nil {
		return EventMsg{}, false
	}
	switch p.Item.Type {
	case "UserMessage":
		ev.Type = EventUserMessage
	case "AgentMessage":
		ev.Type = EventAgentMessage
	default:
		return EventMsg{}, false
	}
	var texts []string
	for _, c := range p.Item.Content {
		if strings.EqualFold(c.Type, "text") && c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	ev.Message = strings.Join(texts, "\n")
	return ev, ev.Message != ""
}

// normalizeEvent turns what other writers record into agent's events: a
// Codex item_completed event into a user or agent message (ok false for
// the items agent does not show) and the old user_message prefix away.
func normalizeEvent(ev EventMsg, raw []byte) (EventMsg, bool) {
	switch ev.Type {
	case eventItemCompleted:
		return fromCodexItem(raw)
	case EventUserMessage:
		if _, after, found := strings.Cut(ev.Message, userMessagePrefix); found {
			ev.Message = strings.TrimSpace(after)
		}
	}
	return ev, true
}
