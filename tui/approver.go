package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/tools"
)

// Approver carries approval requests from the engine's goroutine to the
// chat's approval prompt and the user's answers back. Create one with
// [NewApprover], pass its Approve method as session.Options.Approve and the
// Approver itself as [Options].Approver. It is safe for concurrent use and
// may outlive a [Run] (for example across /new).
type Approver struct {
	reqs chan approvalPrompt
	asks chan askPrompt
}

// NewApprover returns an Approver with no chat attached yet.
func NewApprover() *Approver {
	return &Approver{reqs: make(chan approvalPrompt), asks: make(chan askPrompt)}
}

// AskUser shows the model's request_user_input questions in the chat and
// blocks until the person answers them (the answers by question id) or
// ends the turn (ok false). When ctx ends first it returns ok false. It has
// the signature of session.Options.AskUser and may be called concurrently:
// requests are shown one at a time, in order.
func (a *Approver) AskUser(ctx context.Context, req tools.UserInputRequest) (answers map[string][]string, ok bool) {
	p := askPrompt{req: req, reply: make(chan askReply, 1), done: ctx.Done()}
	select {
	case a.asks <- p:
	case <-ctx.Done():
		return nil, false
	}
	select {
	case r := <-p.reply:
		return r.answers, r.ok
	case <-ctx.Done():
		return nil, false
	}
}

// Approve shows req in the chat and blocks until the user answers. When ctx
// ends first (the turn was interrupted, or the chat quit) it returns
// [tools.AbortTurn]. It has the signature of session.Options.Approve and may
// be called concurrently: requests are asked one at a time, in order.
func (a *Approver) Approve(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
	p := approvalPrompt{req: req, reply: make(chan tools.Decision, 1), done: ctx.Done()}
	select {
	case a.reqs <- p:
	case <-ctx.Done():
		return tools.Decision{Kind: tools.AbortTurn}
	}
	select {
	case d := <-p.reply:
		return d
	case <-ctx.Done():
		return tools.Decision{Kind: tools.AbortTurn}
	}
}

// approvalPrompt is one pending request. reply has room for one answer, so
// answering never blocks; done is the requesting turn's ctx.Done().
type approvalPrompt struct {
	req   tools.ApprovalRequest
	reply chan tools.Decision
	done  <-chan struct{}
}

// approvalMsg delivers a request to Update.
type approvalMsg struct{ p approvalPrompt }

// next returns a command that delivers the next request, approval or
// questions, or nothing once the program ends. Update re-arms it after
// each request.
func (a *Approver) next(quit <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-a.reqs:
			return approvalMsg{p: p}
		case p := <-a.asks:
			return askMsg{p: p}
		case <-quit:
			return nil
		}
	}
}

// answer returns a command that sends d to the engine. The reply channel has
// room for it, so the command never blocks; a second answer is dropped.
func (p approvalPrompt) answer(d tools.Decision) tea.Cmd {
	return func() tea.Msg {
		select {
		case p.reply <- d:
		default:
		}
		return nil
	}
}
