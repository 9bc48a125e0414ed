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
}

// NewApprover returns an Approver with no chat attached yet.
func NewApprover() *Approver {
	return &Approver{reqs: make(chan approvalPrompt)}
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

// next returns a command that delivers the next request, or nothing once the
// program ends. Update re-arms it after each request.
func (a *Approver) next(quit <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-a.reqs:
			return approvalMsg{p: p}
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
