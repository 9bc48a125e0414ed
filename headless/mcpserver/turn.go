package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// runTurn runs one turn of op on prompt for the call req, sending its
// progress when the client asked for it, and returns the call's result:
// the final message as text and in the structured output with the
// session's id. A turn that did not complete is a tool error naming why;
// its output still carries the id, so the caller can continue it.
func (s *Server) runTurn(ctx context.Context, req *mcp.CallToolRequest, op *Opened, prompt string) (*mcp.CallToolResult, Output, error) {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	ctx, stop := interruptible(ctx, stopped)
	defer stop()
	p := newProgress(req)
	p.send(ctx, "session "+op.ID+": working")
	var last string
	err := op.Session.Turn(ctx, prompt, func(ev session.Event) {
		switch ev := ev.(type) {
		case session.MessageDone:
			last = termtext.Plain(ev.Text)
		case session.Retry:
			p.send(ctx, session.RetryNotice(ev.Retry, ev.Delay))
		case session.ToolCallBegin:
			p.send(ctx, "tool call: "+describeCall(ev.Call))
		case session.HookRun:
			// A hook that blocked, failed or said something is named to
			// the client, never skipped silently.
			if ev.Notable() || ev.Run.Message != "" || ev.Run.SystemMessage != "" {
				p.send(ctx, termtext.Plain(ev.Notice()))
			}
		case session.HookStopped:
			p.send(ctx, "warning: "+termtext.Plain(ev.Notice()))
		case session.Warning:
			p.send(ctx, "warning: "+termtext.Plain(ev.Message))
		}
	})
	out := Output{SessionID: op.ID, ThreadID: op.ID, Content: last}
	saveErr := op.Session.SaveError()
	if err != nil {
		msg := "the turn did not complete: " + termtext.Plain(err.Error())
		if ctx.Err() != nil {
			msg = "the turn was interrupted (the call was cancelled)"
		}
		msg += "; continue it with " + ToolReply + " and sessionId " + op.ID
		if saveErr != nil {
			msg += " (the session was not saved: " + saveErr.Error() + ")"
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, out, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: last}}}
	if saveErr != nil {
		// The answer is here; its session is not on disk to continue.
		res.Content = append(res.Content, &mcp.TextContent{Text: "agent: the turn completed, but the session was not saved: " + saveErr.Error()})
	}
	return res, out, nil
}

// interruptible is ctx for a turn: it ends when ctx (the call) or
// stopped (the server) does, always as cancelled. The SDK ends a call's
// context with the cause of its end (the client's input at EOF when it
// went away), which the engine would take for a network failure of the
// turn rather than its interruption; and it does not end its calls when
// the server is stopped.
func interruptible(ctx, stopped context.Context) (context.Context, context.CancelFunc) {
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop1 := context.AfterFunc(ctx, cancel)
	stop2 := context.AfterFunc(stopped, cancel)
	return tctx, func() { stop1(); stop2(); cancel() }
}

// progress sends a call's progress notifications, when its client gave a
// progress token; the zero progress sends none. Not safe for concurrent
// use: the turn's events arrive one at a time.
type progress struct {
	ss    *mcp.ServerSession
	token any
	n     float64
}

func newProgress(req *mcp.CallToolRequest) *progress {
	p := &progress{ss: req.Session}
	if req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

// send sends msg as the next step of progress. A notification that cannot
// be sent (the client went away) is dropped: the turn goes on until its
// context ends.
func (p *progress) send(ctx context.Context, msg string) {
	if p.token == nil || p.ss == nil {
		return
	}
	p.n++
	_ = p.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: termtext.Plain(msg)})
}

// describeCallLimit caps a tool call's description in a notification.
const describeCallLimit = 200

// describeCall is a tool call in one line: its name, and the command of
// an exec_command call.
func describeCall(c tools.Call) string {
	d := c.Name
	var args struct {
		Cmd string `json:"cmd"`
	}
	if !c.Custom && json.Unmarshal([]byte(c.Input), &args) == nil && args.Cmd != "" {
		d += ": " + strings.Join(strings.Fields(args.Cmd), " ")
	}
	if r := []rune(d); len(r) > describeCallLimit {
		d = string(r[:describeCallLimit]) + "…"
	}
	return d
}
