package session

import (
	"context"
	"errors"
	"strings"

	"github.com/agentcli/agent/transport"
)

// SideNote tells the model that a question is asked aside (/side): it
// precedes the side conversation in the request.
const SideNote = "The user is asking a side question, aside from the task of the conversation above. " +
	"Answer it from what the conversation holds; no tool can run here, and nothing said here " +
	"enters the main conversation."

// Side asks question aside from the conversation (/side, as Codex's side
// conversation): one request of its own ([Session.ask], so the session's
// retries and retry gate apply) holding the history as context, then
// [SideNote], the earlier exchanges of the side conversation and the
// question. Neither the question nor the answer enters the history or the
// recording; the request's usage counts towards the session's. It
// returns the answer and the exchange (the question and the answer's
// items), to pass as earlier with the next side question. It must not be
// called while a turn runs.
func (s *Session) Side(ctx context.Context, earlier []transport.Item, question string, emit func(Event)) (answer string, exchange []transport.Item, err error) {
	if strings.TrimSpace(question) == "" {
		return "", nil, errors.New("ask a question: /side QUESTION")
	}
	q := transport.UserMessage(question)
	input := append(s.normalize(s.history), transport.DeveloperMessage(SideNote))
	input = append(append(input, earlier...), q)
	answer, items, err := s.ask(ctx, input, emit)
	if err != nil {
		return "", nil, err
	}
	if strings.TrimSpace(answer) == "" {
		return "", nil, errors.New("the model returned an empty answer")
	}
	return answer, append([]transport.Item{q}, items...), nil
}
