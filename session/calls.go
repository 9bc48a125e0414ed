package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// unknownOutput answers a call whose outcome cannot be known.
const unknownOutput = "the outcome of this call is unknown: the agent stopped while it was running. " +
	"Check its effects before running it again."

// lostOutput answers a call that ran and finished but whose output was
// not recorded.
const lostOutput = "this call ran, but its output was lost before it was recorded; its outcome is unknown. " +
	"Check its effects before running it again."

// abortedOutput answers a call that never ran.
const abortedOutput = "aborted"

// missingOutput is the output sent for a call without a recorded one, by
// the call's ledger state. Only a call that certainly never started is
// "aborted": a start is always durable before the side effect begins, so a
// call still "requested" (or never seen) did not run, and a "declined" one
// was refused. Anything that may have run is of unknown outcome.
func missingOutput(st CallState) string {
	switch st {
	case "", CallRequested, CallDeclined:
		return abortedOutput
	case CallFinished:
		return lostOutput
	}
	return unknownOutput // approved, started, unknown
}

// runCalls runs the calls of one attempt that have not run yet, records
// their outputs into history in call order, and reports how many ran and
// whether the user aborted the turn.
func (s *Session) runCalls(ctx context.Context, calls []transport.Item, emit func(Event)) (ran int, abort bool) {
	if ctx.Err() != nil {
		return 0, false // interrupted: never start anything now
	}
	var pending []transport.Item
	for _, c := range calls {
		if s.ledger.State(c.CallID) == CallRequested {
			pending = append(pending, c)
		}
	}
	if len(pending) == 0 {
		return 0, false
	}
	results := make([]tools.Result, len(pending))
	parallel := true
	for _, c := range pending {
		t, ok := s.opts.Tools.Lookup(c.Name)
		parallel = parallel && ok && t.ParallelSafe()
	}
	if parallel && len(pending) > 1 {
		var wg sync.WaitGroup
		var mu sync.Mutex // emit is not safe for concurrent use
		safeEmit := func(ev Event) { mu.Lock(); emit(ev); mu.Unlock() }
		for i, c := range pending {
			if ctx.Err() != nil {
				s.abortRest(pending[i:], results[i:])
				break
			}
			wg.Go(func() { results[i] = s.runCall(ctx, c, safeEmit) })
		}
		wg.Wait()
	} else {
		for i, c := range pending {
			if ctx.Err() != nil {
				s.abortRest(pending[i:], results[i:])
				break
			}
			results[i] = s.runCall(ctx, c, emit)
			if results[i].AbortTurn {
				for j := i + 1; j < len(pending); j++ {
					results[j] = tools.Result{Output: abortedOutput, Status: tools.StatusAborted}
					_ = s.ledger.set(pending[j].CallID, pending[j].Name, CallDeclined)
				}
				break
			}
		}
	}
	for i, c := range pending {
		s.appendItems(transport.CallOutputWithImages(c.CallID, results[i].Output, results[i].Images, c.Type == "custom_tool_call"))
		abort = abort || results[i].AbortTurn
	}
	s.hookMu.Lock()
	s.addContexts(s.pendingContexts)
	s.pendingContexts = nil
	s.hookMu.Unlock()
	return len(pending), abort
}

// abortRest answers the calls of an interrupted turn that were not begun,
// all at once: none runs, none is asked about or announced, each is
// recorded declined with the output "aborted". (One by one, through
// approval and a durable start each, 100,000 calls took minutes to stop.)
func (s *Session) abortRest(calls []transport.Item, results []tools.Result) {
	for i, c := range calls {
		results[i] = tools.Result{Output: abortedOutput, Status: tools.StatusAborted}
		_ = s.ledger.set(c.CallID, c.Name, CallDeclined)
	}
}

// runCall runs one call through the approval hooks and the ledger.
func (s *Session) runCall(ctx context.Context, c transport.Item, emit func(Event)) tools.Result {
	call := tools.Call{ID: c.CallID, Name: c.Name, Input: c.Arguments, Custom: c.Type == "custom_tool_call"}
	if call.Custom {
		call.Input = c.Input
	}
	emit(ToolCallBegin{Call: call})
	if res, ok := s.goalTool(call); ok {
		_ = s.ledger.set(c.CallID, c.Name, CallFinished)
		emit(ToolCallEnd{Call: call, Result: res})
		if g := s.Goal(); g != nil && call.Name == "update_goal" && res.Status == tools.StatusCompleted {
			emit(goalEnded(*g))
		}
		return res
	}
	if res, refused := s.planRefusal(call); refused {
		_ = s.ledger.set(c.CallID, c.Name, CallDeclined)
		emit(ToolCallEnd{Call: call, Result: res})
		return res
	}
	watch := s.watchCall(ctx, call)
	run, blocked := s.preToolUse(ctx, s.turnID, call, emit)
	if blocked != nil {
		_ = s.ledger.set(c.CallID, c.Name, CallDeclined)
		watch.ended(*blocked)
		emit(ToolCallEnd{Call: call, Result: *blocked})
		return *blocked
	}
	started := false
	inv := &tools.Invocation{
		Call:    run,
		Policy:  s.opts.ApprovalPolicy,
		AskUser: s.opts.AskUser,
		Approve: func(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
			d, ok := s.planApproval(ctx, req)
			if !ok {
				d, ok = s.permissionRequest(ctx, s.turnID, run, emit)
			}
			if !ok {
				d = s.approve(ctx, req)
			}
			watch.decided(d)
			st := CallApproved
			if d.Kind == tools.Deny || d.Kind == tools.AbortTurn {
				st = CallDeclined
			}
			_ = s.ledger.set(c.CallID, c.Name, st)
			return d
		},
		Started: func() error {
			s.checkpointBefore(ctx, run.Name, emit)
			// The start must be durable before the side effect: a call
			// whose start cannot be recorded does not run (at most once).
			err := s.ledger.set(c.CallID, c.Name, CallStarted)
			if err == nil && s.opts.Recorder != nil {
				err = s.opts.Recorder.Sync()
			}
			if err != nil {
				s.noteSave(err)
				emit(Warning{Message: fmt.Sprintf("tool call %s (%s) was not run: its start could not be saved: %v",
					c.CallID, c.Name, err), NotSaved: true})
				return err
			}
			started = true
			return nil
		},
	}
	var res tools.Result
	if s.opts.Tools == nil {
		res = tools.Result{Output: "no tools are available in this session", Status: tools.StatusFailed}
	} else {
		res = s.opts.Tools.Run(ctx, inv)
	}
	if started || s.ledger.State(c.CallID) != CallDeclined {
		_ = s.ledger.set(c.CallID, c.Name, CallFinished)
	}
	res = s.postToolUse(ctx, s.turnID, run, res, emit)
	watch.ended(res)
	emit(ToolCallEnd{Call: call, Result: res})
	return res
}

// approve applies remembered approve-for-session decisions, then asks the
// front end; with no front end to ask, the answer is no.
func (s *Session) approve(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
	s.approvedMu.Lock()
	ok := s.approved[req.Key()]
	s.approvedMu.Unlock()
	if ok {
		return tools.Decision{Kind: tools.ApproveOnce}
	}
	if s.opts.Approve == nil {
		return tools.Decision{Kind: tools.Deny, Note: "no one is available to approve it in this mode"}
	}
	d := s.opts.Approve(ctx, req)
	if d.Kind == tools.ApproveForSession {
		s.approvedMu.Lock()
		s.approved[req.Key()] = true
		s.approvedMu.Unlock()
	}
	return d
}

// normalize returns history fit to send: every call has an output (see
// [missingOutput]), and outputs without a call are dropped.
func (s *Session) normalize(history []transport.Item) []transport.Item {
	// The sets are sized for the history's calls and outputs: a long
	// session's maps were grown step by step for every request.
	n := 0
	for _, it := range history {
		if it.IsCall() || it.IsCallOutput() {
			n++
		}
	}
	calls, outputs := make(map[string]bool, n/2), make(map[string]bool, n/2)
	for _, it := range history {
		switch {
		case it.IsCall():
			calls[it.CallID] = true
		case it.IsCallOutput():
			outputs[it.CallID] = true
		}
	}
	if !needsNormalizing(history, calls, outputs) {
		// Every call has its output and every output its call: the
		// request reads the history as it is (a long session's history
		// is not copied for every request).
		return history[:len(history):len(history)]
	}
	out := make([]transport.Item, 0, len(history))
	for _, it := range history {
		if it.IsCallOutput() && !calls[it.CallID] {
			continue // orphan output
		}
		out = append(out, it)
		if it.IsCall() && !outputs[it.CallID] {
			out = append(out, transport.CallOutput(it.CallID, missingOutput(s.ledger.State(it.CallID)), it.Type == "custom_tool_call"))
		}
	}
	return out
}

// needsNormalizing reports whether normalize would change history: an
// output without its call, or a call without its output.
func needsNormalizing(history []transport.Item, calls, outputs map[string]bool) bool {
	for _, it := range history {
		if it.IsCallOutput() && !calls[it.CallID] || it.IsCall() && !outputs[it.CallID] {
			return true
		}
	}
	return false
}
