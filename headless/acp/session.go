package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/internal/app"
	engine "github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/patch"
)

// session is an ACP session: an app thread and its running turn.
type session struct {
	s  *Server
	id string
	t  *app.Thread

	mu  sync.Mutex
	run *run
	// rejected are the calls the user rejected always (their
	// [tools.ApprovalRequest.Key]): refused from then on without asking.
	rejected map[string]bool
	closed   bool
	// ed is the client's buffers, when it offers them: the patches read
	// and write through it.
	ed tools.Editor
	// terminals says the client draws commands' output as terminals.
	terminals bool
}

// run is a running turn.
type run struct {
	cancel context.CancelFunc
	done   chan struct{}
	// ctx is the turn's: approvals are asked under it.
	ctx context.Context
}

// close interrupts the running turn, waits for it to end (recorded as
// interrupted) and closes the thread.
func (se *session) close() {
	se.mu.Lock()
	if se.closed {
		se.mu.Unlock()
		return
	}
	se.closed = true
	r := se.run
	se.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
	se.t.End() // a session left without a message leaves no recording
}

// cancel stops the running turn, if any.
func (se *session) cancel() {
	se.mu.Lock()
	r := se.run
	se.mu.Unlock()
	if r != nil {
		r.cancel()
	}
}

// update sends one session/update of the session. Updates are sent even
// while the turn is being cancelled (its last tool call updates); a
// connection gone makes them fail, which is logged.
func (se *session) update(u sdk.SessionUpdate) {
	err := se.s.conn.SessionUpdate(context.WithoutCancel(context.Background()), sdk.SessionNotification{SessionId: sdk.SessionId(se.id), Update: u})
	if err != nil {
		se.s.opts.Log.Debug("session/update not sent", "session", se.id, "err", err)
	}
}

// prompt runs a turn on the prompt's content and answers how it stopped.
func (se *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	text, images, err := promptInput(blocks)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	se.mu.Lock()
	if se.closed {
		se.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the session is closed"})
	}
	if se.run != nil {
		se.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the session has a prompt running: cancel it first (session/cancel)"})
	}
	// The request's context ends with the connection: a client gone
	// interrupts the turn.
	tctx, cancel := context.WithCancel(ctx)
	r := &run{cancel: cancel, done: make(chan struct{}), ctx: tctx}
	se.run = r
	se.mu.Unlock()
	defer func() {
		cancel()
		se.mu.Lock()
		se.run = nil
		se.mu.Unlock()
		close(r.done)
	}()
	if len(images) > 0 {
		se.t.AttachImages(images...)
	}
	tu := &turn{se: se, ctx: tctx, streamed: map[string]bool{}, calls: map[string]*call{}}
	err = se.t.Turn(tctx, text, tu.handle)
	if err == nil {
		// A goal (the model's create_goal) goes on within its budgets
		// before the prompt answers, as in the chat; cancel stops it.
		err = se.t.Pursue(tctx, tu.handle)
	}
	switch {
	case tctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case err != nil:
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	case tu.refused:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// promptInput is a prompt's text and the images agent attaches: text as
// is, embedded resources as context blocks naming their uri, links by
// their uri, images as data: URLs.
func promptInput(blocks []sdk.ContentBlock) (string, []string, error) {
	var parts, images []string
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			if b.Image.Data == "" {
				return "", nil, fmt.Errorf("prompt block %d: an image without data is not supported", i)
			}
			images = append(images, "data:"+b.Image.MimeType+";base64,"+b.Image.Data)
		case b.Resource != nil:
			res := b.Resource.Resource
			if res.TextResourceContents == nil {
				return "", nil, fmt.Errorf("prompt block %d: an embedded binary resource is not supported", i)
			}
			parts = append(parts, fmt.Sprintf("<context uri=%q>\n%s\n</context>", res.TextResourceContents.Uri, res.TextResourceContents.Text))
		case b.ResourceLink != nil:
			parts = append(parts, "@"+b.ResourceLink.Uri)
		case b.Audio != nil:
			return "", nil, fmt.Errorf("prompt block %d: audio is not supported", i)
		}
	}
	return strings.Join(parts, "\n"), images, nil
}

// approve asks the client about a call the policy does not allow by
// itself: allow once or always, reject once or always; a cancelled
// request (the prompt cancelled) aborts the turn.
func (se *session) approve(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
	se.mu.Lock()
	rejected := se.rejected[req.Key()]
	se.mu.Unlock()
	if rejected {
		return tools.Decision{Kind: tools.Deny, Note: "the user rejected this always"}
	}
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Status: sdk.Ptr(sdk.ToolCallStatusPending)}
	switch req.Kind {
	case "patch":
		tc.Kind, tc.Title = sdk.Ptr(sdk.ToolKindEdit), sdk.Ptr("Edit "+strings.Join(req.Files, ", "))
		for _, f := range req.Files {
			tc.Locations = append(tc.Locations, sdk.ToolCallLocation{Path: absIn(se.t.Workspace().Cwd, f)})
		}
		if req.Diff != "" {
			tc.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("```diff\n" + req.Diff + "```"))}
		}
	case "command":
		tc.Kind, tc.Title = sdk.Ptr(sdk.ToolKindExecute), sdk.Ptr(req.Command)
	default:
		tc.Kind, tc.Title = sdk.Ptr(sdk.ToolKindOther), sdk.Ptr(req.Command)
	}
	if req.Reason != "" {
		tc.Content = append(tc.Content, sdk.ToolContent(sdk.TextBlock(req.Reason)))
	}
	res, err := se.s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(se.id),
		ToolCall:  tc,
		Options: []sdk.PermissionOption{
			{OptionId: "allow_once", Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: "allow_always", Name: "Allow for this session", Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: "reject_once", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
			{OptionId: "reject_always", Name: "Reject for this session", Kind: sdk.PermissionOptionKindRejectAlways},
		},
	})
	switch {
	case ctx.Err() != nil:
		return tools.Decision{Kind: tools.AbortTurn}
	case err != nil:
		return tools.Decision{Kind: tools.AbortTurn, Note: "the client could not be asked: " + err.Error()}
	case res.Outcome.Cancelled != nil:
		return tools.Decision{Kind: tools.AbortTurn}
	case res.Outcome.Selected == nil:
		return tools.Decision{Kind: tools.Deny, Note: "the client's answer could not be read"}
	}
	switch res.Outcome.Selected.OptionId {
	case "allow_once":
		return tools.Decision{Kind: tools.ApproveOnce}
	case "allow_always":
		return tools.Decision{Kind: tools.ApproveForSession}
	case "reject_always":
		se.mu.Lock()
		se.rejected[req.Key()] = true
		se.mu.Unlock()
	}
	return tools.Decision{Kind: tools.Deny}
}

// absIn is path made absolute against dir.
func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// turn maps one turn's session events to session/update notifications.
type turn struct {
	se *session
	// ctx is the turn's: the editor is asked under it.
	ctx context.Context
	// streamed are the items whose text was streamed as chunks.
	streamed map[string]bool
	// calls are the tool calls started, by call id.
	calls   map[string]*call
	refused bool
}

// call is a tool call shown to the client.
type call struct {
	// files are a patch's files and their contents before it (nil: the
	// file did not exist), by absolute path.
	files map[string]*string
	order []string
}

// handle sends one engine event as session/update notifications.
func (tu *turn) handle(ev engine.Event) {
	se := tu.se
	switch ev := ev.(type) {
	case engine.TextDelta:
		tu.streamed[ev.ItemID] = true
		se.update(sdk.UpdateAgentMessageText(ev.Delta))
	case engine.ReasoningDelta:
		tu.streamed[ev.ItemID] = true
		se.update(sdk.UpdateAgentThoughtText(ev.Delta))
	case engine.ReasoningDone:
		if !tu.streamed[ev.ItemID] && ev.Text != "" {
			se.update(sdk.UpdateAgentThoughtText(ev.Text))
		}
	case engine.MessageDone:
		if ev.Refused {
			tu.refused = true
		}
		if !tu.streamed[ev.ItemID] && ev.Text != "" {
			tu.streamed[ev.ItemID] = true
			se.update(sdk.UpdateAgentMessageText(ev.Text))
		}
	case engine.Retracted:
		// ACP cannot take chunks back: say that the text shown so far
		// belongs to an attempt that failed and starts again — unless the
		// user cancelled the turn, which nothing retries.
		if tu.ctx.Err() == nil {
			se.update(sdk.UpdateAgentThoughtText("(the response was cut off; agent retries and the answer starts again)"))
		}
		for _, id := range ev.ItemIDs {
			delete(tu.streamed, id)
		}
	case engine.Retry:
		se.update(sdk.UpdateAgentThoughtText(engine.RetryNotice(ev.Retry, ev.Delay)))
	case engine.Warning:
		se.update(sdk.UpdateAgentThoughtText("warning: " + ev.Message))
	case engine.HookRun:
		// A hook that blocked, failed or has something to say is named;
		// one that just ran is not worth a line.
		if ev.Notable() || ev.Run.Message != "" || ev.Run.SystemMessage != "" {
			se.update(sdk.UpdateAgentThoughtText(ev.Notice()))
		}
	case engine.HookStopped:
		se.update(sdk.UpdateAgentThoughtText("warning: " + ev.Notice()))
	case engine.ToolCallBegin:
		tu.callBegin(ev.Call)
	case engine.ToolCallEnd:
		tu.callEnd(ev.Call, ev.Result)
	case engine.TurnCompleted:
		se.update(se.usage(ev))
	case engine.GoalUpdated:
		if ev.Message != "" {
			se.update(sdk.UpdateAgentThoughtText(ev.Message))
		}
	}
}

// usage is the usage_update after a turn: the context its last response
// filled of the model's window (0 when the window is unknown) and what the
// session has cost, when every price is known.
func (se *session) usage(ev engine.TurnCompleted) sdk.SessionUpdate {
	u := &sdk.SessionUsageUpdate{SessionUpdate: "usage_update", Used: int(ev.Last.TotalTokens),
		Size: int(se.s.opts.App.Config().ContextWindow(se.t.Settings().Sampling.Model))}
	if ev.TotalCost != nil {
		u.Cost = &sdk.Cost{Amount: *ev.TotalCost, Currency: "USD"}
	}
	return sdk.SessionUpdate{UsageUpdate: u}
}

// rawJSON is a call's arguments as a JSON value (its text when not JSON).
func rawJSON(input string) any {
	if json.Valid([]byte(input)) {
		return json.RawMessage(input)
	}
	return map[string]any{"input": input}
}

// callBegin announces a tool call as a tool_call.
func (tu *turn) callBegin(c tools.Call) {
	if c.Name == "update_plan" {
		return // the plan is sent when the call ends
	}
	ws := tu.se.t.Workspace()
	d := tu.se.describe(c)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartRawInput(rawJSON(c.Input)), sdk.WithStartKind(d.kind)}
	ca := &call{}
	switch c.Name {
	case "exec_command":
		if tu.se.terminals {
			// A terminal the client draws, fed from the tool call's _meta:
			// the command itself runs here, in agent's sandbox.
			opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(c.ID)}), func(tc *sdk.SessionUpdateToolCall) {
				tc.Meta = map[string]any{"terminal_info": map[string]any{"terminal_id": c.ID, "cwd": ws.Cwd}}
			})
		}
	case "apply_patch":
		ca.files = map[string]*string{}
		var locs []sdk.ToolCallLocation
		for _, abs := range d.paths {
			ca.order = append(ca.order, abs)
			ca.files[abs] = tu.se.readText(tu.ctx, abs)
			locs = append(locs, sdk.ToolCallLocation{Path: abs})
		}
		opts = append(opts, sdk.WithStartLocations(locs))
	case "read_file":
		if len(d.paths) > 0 {
			opts = append(opts, sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: d.paths[0]}}))
		}
	}
	tu.calls[c.ID] = ca
	tu.se.update(sdk.StartToolCall(sdk.ToolCallId(c.ID), d.title, opts...))
}

// described is how a tool call is shown: its title, kind and, for a
// patch, the absolute paths of its files.
type described struct {
	title string
	kind  sdk.ToolKind
	paths []string
}

// describe is how c is shown to the client.
func (se *session) describe(c tools.Call) described {
	ws := se.t.Workspace()
	switch c.Name {
	case "exec_command":
		title := commandText(c.Input)
		if argv, ok := tools.ExecArgv(ws.Shell, c.Input); ok && title == "" {
			title = tools.ShellJoin(argv)
		}
		return described{title: title, kind: sdk.ToolKindExecute}
	case "write_stdin":
		return described{title: "Write to a running command", kind: sdk.ToolKindExecute}
	case "apply_patch":
		d := described{title: "Edit files", kind: sdk.ToolKindEdit}
		for _, p := range patchPaths(c) {
			d.paths = append(d.paths, absIn(ws.Cwd, p))
		}
		if len(d.paths) > 0 {
			d.title = "Edit " + strings.Join(relAll(ws.Cwd, d.paths), ", ")
		}
		return d
	case "read_file":
		var a struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal([]byte(c.Input), &a)
		d := described{title: "Read " + a.FilePath, kind: sdk.ToolKindRead}
		if a.FilePath != "" {
			d.paths = []string{absIn(ws.Cwd, a.FilePath)}
			d.title = "Read " + relAll(ws.Cwd, d.paths)[0]
		}
		return d
	case "spawn_agent", "send_input", "wait_agent", "resume_agent", "close_agent":
		return described{title: subagentTitle(c), kind: sdk.ToolKindOther} // what it is about, in the title
	}
	return described{title: c.Name, kind: sdk.ToolKindOther}
}

// subagentTitle is the title of a call to a subagent tool: "Subagent:
// TASK" for spawn_agent, else the tool and the agents it names.
func subagentTitle(c tools.Call) string {
	var a struct {
		Message string   `json:"message"`
		Target  string   `json:"target"`
		ID      string   `json:"id"`
		Targets []string `json:"targets"`
	}
	_ = json.Unmarshal([]byte(c.Input), &a)
	if c.Name == "spawn_agent" {
		task, _, _ := strings.Cut(strings.TrimSpace(a.Message), "\n")
		return "Subagent: " + task
	}
	ids := append(a.Targets, a.Target, a.ID)
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == "" })
	return c.Name + " " + strings.Join(ids, ", ")
}

// relAll is paths relative to dir where they are under it.
func relAll(dir string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			p = r
		}
		out = append(out, p)
	}
	return out
}

// patchPaths are the paths an apply_patch call names.
func patchPaths(c tools.Call) []string {
	text := c.Input
	if !c.Custom {
		var a struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(c.Input), &a) != nil {
			return nil
		}
		text = a.Input
	}
	p, err := patch.Parse(text)
	if err != nil {
		return nil
	}
	return p.Paths()
}

// commandText is the cmd of an exec_command call's arguments.
func commandText(input string) string {
	var a struct {
		Cmd string `json:"cmd"`
	}
	_ = json.Unmarshal([]byte(input), &a)
	return a.Cmd
}

// callEnd sends a tool call's end as a tool_call_update: a command's
// output, a patch's diffs, or the plan as a plan update.
func (tu *turn) callEnd(c tools.Call, r tools.Result) {
	se := tu.se
	if c.Name == "update_plan" {
		if len(r.Plan) == 0 {
			return
		}
		se.update(sdk.UpdatePlan(planEntries(r.Plan)...))
		return
	}
	ca := tu.calls[c.ID]
	delete(tu.calls, c.ID)
	if ca == nil {
		return
	}
	status := sdk.ToolCallStatusCompleted
	if r.Status != tools.StatusCompleted || (r.ExitCode != nil && *r.ExitCode != 0) {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
	var content []sdk.ToolCallContent
	switch c.Name {
	case "exec_command", "write_stdin":
		raw := map[string]any{"output": r.CommandOutput}
		if r.ExitCode != nil {
			raw["exitCode"] = *r.ExitCode
		}
		opts = append(opts, sdk.WithUpdateRawOutput(raw))
		out := r.CommandOutput
		if out == "" && r.Status != tools.StatusCompleted {
			out = r.Output
		}
		if se.terminals && c.Name == "exec_command" {
			// The output into the client's terminal, then its exit.
			if out != "" {
				se.update(sdk.UpdateToolCall(sdk.ToolCallId(c.ID), func(u *sdk.SessionToolCallUpdate) {
					u.Meta = map[string]any{"terminal_output": map[string]any{"terminal_id": c.ID, "data": out}}
				}))
			}
			var code any
			if r.ExitCode != nil {
				code = *r.ExitCode
			}
			opts = append(opts, func(u *sdk.SessionToolCallUpdate) {
				u.Meta = map[string]any{"terminal_exit": map[string]any{"terminal_id": c.ID, "exit_code": code, "signal": nil}}
			})
		} else if out != "" {
			content = append(content, sdk.ToolContent(sdk.TextBlock("```\n"+strings.TrimSuffix(out, "\n")+"\n```")))
		}
	case "apply_patch":
		if r.Status == tools.StatusCompleted {
			for _, p := range ca.order {
				var now string
				if t := se.readText(tu.ctx, p); t != nil {
					now = *t
				}
				if old := ca.files[p]; old != nil {
					content = append(content, sdk.ToolDiffContent(p, now, *old))
				} else {
					content = append(content, sdk.ToolDiffContent(p, now))
				}
			}
		} else if r.Output != "" {
			content = append(content, sdk.ToolContent(sdk.TextBlock(r.Output)))
		}
	default:
		if r.Output != "" {
			content = append(content, sdk.ToolContent(sdk.TextBlock(r.Output)))
		}
	}
	if len(content) > 0 {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	se.update(sdk.UpdateToolCall(sdk.ToolCallId(c.ID), opts...))
}

// planEntries are the plan's steps as ACP plan entries.
func planEntries(plan []tools.PlanStep) []sdk.PlanEntry {
	var entries []sdk.PlanEntry
	for _, s := range plan {
		st := sdk.PlanEntryStatusPending
		switch s.Status {
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		}
		entries = append(entries, sdk.PlanEntry{Content: s.Step, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return entries
}
