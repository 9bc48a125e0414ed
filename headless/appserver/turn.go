package appserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// turn is one turn of a thread: its id, how to stop it, and the items it
// showed, in order (thread/items/list).
type turn struct {
	th     *thread
	id     string
	cancel context.CancelFunc
	done   chan struct{}
	input  string
	// goal says the turn continues the thread's goal (it has no input).
	goal bool
	// run runs the turn, once the response to turn/start is sent.
	run func()

	mu        sync.Mutex
	started   time.Time
	completed time.Time
	status    string // inProgress, completed, interrupted, failed
	err       map[string]any
	waiting   bool
	items     []entry
	// open are the items started and not completed, by agent's item id.
	open map[string]*openItem
	// pending are messages completed by an attempt whose response has not
	// completed yet: they are the answer only once it does.
	pending []string
	// retracted counts the items whose deltas a failed attempt retracted:
	// the attempt that streams them again gets a new item id.
	retracted map[string]int
	// calls are the tool calls started, by call id.
	calls map[string]*callItem
	// usage is the thread's usage before the turn plus the turn's.
	usage transport.Usage
	// begun says the session's turn has started (it takes input); early
	// is the input steered before, given to it then.
	begun bool
	early []string
}

// steer adds input to the turn ([session.Session.Steer]): kept until the
// session's turn has begun.
func (tu *turn) steer(text string) error {
	tu.mu.Lock()
	defer tu.mu.Unlock()
	if !tu.begun {
		tu.early = append(tu.early, text)
		return nil
	}
	return tu.th.t.Steer(text)
}

// entry is an item of a turn as thread/items/list gives it.
type entry struct {
	item               map[string]any
	started, completed time.Time
}

// openItem is an assistant message or reasoning being streamed.
type openItem struct {
	id   string // the item id the client knows
	typ  string // agentMessage or reasoning
	text strings.Builder
	at   time.Time
}

// callItem is a tool call started.
type callItem struct {
	id   string
	item map[string]any
	at   time.Time
}

func (tu *turn) now() time.Time { return tu.th.s.now() }

// json is the turn as Codex's Turn object.
func (tu *turn) json(withItems bool) map[string]any {
	tu.mu.Lock()
	defer tu.mu.Unlock()
	items := []any{}
	view := "notLoaded"
	if withItems {
		view = "full"
		for _, e := range tu.items {
			items = append(items, e.item)
		}
	}
	var completedAt, duration any
	if !tu.completed.IsZero() {
		completedAt = tu.completed.Unix()
		duration = tu.completed.Sub(tu.started).Milliseconds()
	}
	var terr any
	if tu.err != nil {
		terr = tu.err
	}
	return map[string]any{"id": tu.id, "rootTurnId": tu.id, "items": items, "itemsView": view, "status": tu.status,
		"error": terr, "startedAt": tu.started.Unix(), "completedAt": completedAt, "durationMs": duration}
}

// summary is the turn as turn/completed gives it: the final answer.
func (tu *turn) summary() map[string]any {
	j := tu.json(false)
	tu.mu.Lock()
	defer tu.mu.Unlock()
	items := []any{}
	for i := len(tu.items) - 1; i >= 0; i-- {
		if tu.items[i].item["type"] == "agentMessage" {
			items = append(items, tu.items[i].item)
			break
		}
	}
	j["items"], j["itemsView"] = items, "summary"
	return j
}

func (tu *turn) setWaiting(w bool) {
	tu.mu.Lock()
	tu.waiting = w
	tu.mu.Unlock()
	flags := []string{}
	if w {
		flags = append(flags, "waitingOnApproval")
	}
	tu.th.broadcast("thread/status/changed", map[string]any{"threadId": tu.th.id,
		"status": map[string]any{"type": "active", "activeFlags": flags}})
}

// notifyItem sends item/started or item/completed of item.
func (tu *turn) notifyItem(method string, item map[string]any, at time.Time) {
	p := map[string]any{"threadId": tu.th.id, "turnId": tu.id, "item": item}
	if method == "item/started" {
		p["startedAtMs"] = at.UnixMilli()
	} else {
		p["completedAtMs"] = at.UnixMilli()
	}
	tu.th.broadcast(method, p)
}

// complete records item as the turn's and sends item/completed.
func (tu *turn) complete(item map[string]any, started time.Time) {
	now := tu.now()
	tu.mu.Lock()
	tu.items = append(tu.items, entry{item: item, started: started, completed: now})
	tu.mu.Unlock()
	tu.notifyItem("item/completed", item, now)
}

// startTurn starts a turn on input and returns it; its notifications
// follow once the response to turn/start is sent (run).
//
// A turn that is ending (its model done, no longer taking input: turn/steer
// says "no active turn") is waited for, up to endingWait, and the input
// starts the next turn: the prompt a user sends as a turn ends, which
// Codex's TUI first tries to steer, is not refused as "a turn in
// progress". The connection's other requests wait meanwhile.
func (th *thread) startTurn(ctx context.Context, input string) (*turn, error) {
	th.mu.Lock()
	prev := th.turn
	th.mu.Unlock()
	if prev != nil && prev.ending() {
		wait := time.NewTimer(endingWait)
		defer wait.Stop()
		select {
		case <-prev.done:
		case <-wait.C:
		case <-ctx.Done():
		}
	}
	return th.newTurn(input, false)
}

// endingWait bounds how long turn/start waits for an ending turn: its
// recording and Stop hooks take milliseconds, or a hook's own time.
const endingWait = 5 * time.Second

// ending says the turn has begun and no longer takes input: it is ending.
func (tu *turn) ending() bool {
	tu.mu.Lock()
	defer tu.mu.Unlock()
	return tu.begun && !tu.th.t.TakesInput()
}

// startGoalTurn starts a continuation turn of the thread's goal.
func (th *thread) startGoalTurn() (*turn, error) {
	return th.newTurn("", true)
}

// newTurn starts a turn: on input, or (goal) a continuation of the goal.
func (th *thread) newTurn(input string, goal bool) (*turn, error) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.closed {
		return nil, invalidParams("thread %s is closed", th.id)
	}
	if th.turn != nil {
		return nil, invalidParams("thread %s has a turn in progress (%s): interrupt it, or steer it with turn/steer", th.id, th.turn.id)
	}
	th.n++
	ctx, cancel := context.WithCancel(context.Background())
	tu := &turn{th: th, id: rollout.NewID(), cancel: cancel, done: make(chan struct{}), input: input, goal: goal,
		started: th.s.now(), status: "inProgress", open: map[string]*openItem{}, retracted: map[string]int{},
		calls: map[string]*callItem{}, usage: th.t.Usage()}
	th.turn = tu
	th.turns = append(th.turns, tu)
	if th.preview == "" && !goal {
		th.preview = firstLine(input)
	}
	tu.run = func() { tu.loop(ctx) }
	return tu, nil
}

// firstLine is a preview of text: its first line, at most 80 runes.
func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > 80 {
		line = string(r[:80]) + "…"
	}
	return line
}

// loop runs the turn and sends its notifications.
func (tu *turn) loop(ctx context.Context) {
	th := tu.th
	defer close(tu.done)
	th.broadcast("thread/status/changed", map[string]any{"threadId": th.id, "status": map[string]any{"type": "active", "activeFlags": []string{}}})
	th.broadcast("turn/started", map[string]any{"threadId": th.id, "turn": tu.json(false)})
	var err error
	if tu.goal {
		_, err = th.t.PursueTurn(ctx, tu.handle)
	} else {
		user := userMessageItem(tu.id+"-user", tu.input)
		now := tu.now()
		tu.notifyItem("item/started", user, now)
		tu.complete(user, now)
		err = th.t.Turn(ctx, tu.input, tu.handle)
	}
	tu.mu.Lock()
	tu.completed = tu.now()
	switch {
	case err == nil:
		tu.status = "completed"
	case ctx.Err() != nil:
		tu.status = "interrupted"
	default:
		tu.status = "failed"
		tu.err = map[string]any{"message": err.Error(), "codexErrorInfo": nil, "additionalDetails": nil}
	}
	// Items left open (a stream cut, an interruption) end with the turn.
	var left []*openItem
	for _, o := range tu.open {
		left = append(left, o)
	}
	tu.open = map[string]*openItem{}
	status, terr := tu.status, tu.err
	tu.mu.Unlock()
	sort.Slice(left, func(i, j int) bool { return left[i].at.Before(left[j].at) })
	for _, o := range left {
		if status == "completed" {
			tu.complete(o.item(), o.at)
		}
	}
	if terr != nil {
		th.broadcast("error", map[string]any{"threadId": th.id, "turnId": tu.id, "willRetry": false, "error": terr})
	}
	th.mu.Lock()
	th.turn = nil
	th.updated = tu.now()
	th.mu.Unlock()
	th.syncGoal(tu.id)
	th.broadcast("thread/status/changed", map[string]any{"threadId": th.id, "status": map[string]any{"type": "idle"}})
	th.broadcast("turn/completed", map[string]any{"threadId": th.id, "turn": tu.summary()})
	if status == "completed" {
		th.continueGoal() // an active goal goes on, within its budgets
	}
}

// item is the open item as a ThreadItem.
func (o *openItem) item() map[string]any {
	if o.typ == "reasoning" {
		return reasoningItem(o.id, o.text.String())
	}
	return agentMessageItem(o.id, o.text.String())
}

// itemID is the client's id of agent's item id: the same, unless a failed
// attempt's deltas of it were retracted.
func (tu *turn) itemID(id string) string {
	if n := tu.retracted[id]; n > 0 {
		return id + "-retry" + strconv.Itoa(n)
	}
	return id
}

// openStream starts (once) the streamed item of id.
func (tu *turn) openStream(id, typ string) *openItem {
	tu.mu.Lock()
	o := tu.open[id]
	if o != nil {
		tu.mu.Unlock()
		return o
	}
	o = &openItem{id: tu.itemID(id), typ: typ, at: tu.now()}
	tu.open[id] = o
	tu.mu.Unlock()
	tu.notifyItem("item/started", o.item(), o.at)
	return o
}

// closeStream ends the streamed item of id, returning it (nil when none).
func (tu *turn) closeStream(id string) *openItem {
	tu.mu.Lock()
	defer tu.mu.Unlock()
	o := tu.open[id]
	delete(tu.open, id)
	return o
}

// handle sends one engine event as Codex's notifications.
func (tu *turn) handle(ev session.Event) {
	th := tu.th
	switch ev := ev.(type) {
	case session.TurnStarted:
		tu.mu.Lock()
		tu.begun = true
		for _, text := range tu.early {
			_ = tu.th.t.Steer(text) // the turn takes input from TurnStarted on
		}
		tu.early = nil
		tu.mu.Unlock()
	case session.TextDelta:
		o := tu.openStream(ev.ItemID, "agentMessage")
		tu.mu.Lock()
		o.text.WriteString(ev.Delta)
		tu.mu.Unlock()
		th.broadcast("item/agentMessage/delta", map[string]any{"threadId": th.id, "turnId": tu.id, "itemId": o.id, "delta": ev.Delta})
	case session.ReasoningDelta:
		o := tu.openStream(ev.ItemID, "reasoning")
		tu.mu.Lock()
		o.text.WriteString(ev.Delta)
		tu.mu.Unlock()
		th.broadcast("item/reasoning/summaryTextDelta", map[string]any{"threadId": th.id, "turnId": tu.id, "itemId": o.id, "delta": ev.Delta, "summaryIndex": 0})
	case session.Retracted:
		tu.mu.Lock()
		for _, id := range ev.ItemIDs {
			if _, ok := tu.open[id]; ok {
				delete(tu.open, id)
				tu.retracted[id]++
			}
		}
		tu.pending = nil
		tu.mu.Unlock()
	case session.MessageDone:
		o := tu.openStream(ev.ItemID, "agentMessage")
		tu.mu.Lock()
		o.text.Reset()
		o.text.WriteString(ev.Text)
		tu.pending = append(tu.pending, ev.ItemID)
		tu.mu.Unlock()
	case session.PlanProposed:
		// Codex's plan item: the proposed plan, beside the message.
		now := tu.now()
		item := map[string]any{"type": "plan", "id": ev.ItemID + "-plan", "text": ev.Plan}
		tu.notifyItem("item/started", item, now)
		tu.complete(item, now)
	case session.ReasoningDone:
		o := tu.openStream(ev.ItemID, "reasoning")
		tu.closeStream(ev.ItemID)
		tu.complete(reasoningItem(o.id, ev.Text), o.at)
	case session.ResponseCompleted:
		tu.mu.Lock()
		pending := tu.pending
		tu.pending = nil
		tu.usage.Add(ev.Usage)
		total := tu.usage
		tu.mu.Unlock()
		for _, id := range pending {
			if o := tu.closeStream(id); o != nil {
				tu.complete(o.item(), o.at)
			}
		}
		th.broadcast("thread/tokenUsage/updated", map[string]any{"threadId": th.id, "turnId": tu.id,
			"tokenUsage": map[string]any{"total": usageJSON(total), "last": usageJSON(ev.Usage), "modelContextWindow": nil}})
	case session.Retry:
		th.broadcast("error", map[string]any{"threadId": th.id, "turnId": tu.id, "willRetry": true,
			"error": map[string]any{"message": session.RetryNotice(ev.Retry, ev.Delay), "codexErrorInfo": nil, "additionalDetails": nil}})
	case session.Warning:
		th.broadcast("warning", map[string]any{"threadId": th.id, "message": ev.Message})
	case session.HookRun, session.HookStopped:
		tu.hook(ev)
	case session.ToolCallBegin:
		tu.callBegin(ev.Call)
	case session.ToolCallEnd:
		tu.callEnd(ev.Call, ev.Result)
		if strings.HasSuffix(ev.Call.Name, "_goal") {
			th.syncGoal(tu.id) // the model's create_goal or update_goal
		}
	case session.GoalUpdated:
		th.syncGoal(tu.id)
	case session.WebSearchDone:
		now := tu.now()
		item := map[string]any{"type": "webSearch", "id": ev.ItemID, "query": ev.Query, "action": nil}
		tu.notifyItem("item/started", item, now)
		tu.complete(item, now)
	}
}

// usageJSON is u as Codex's TokenUsageBreakdown.
func usageJSON(u transport.Usage) map[string]any {
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return map[string]any{"totalTokens": total, "inputTokens": u.InputTokens, "cachedInputTokens": u.CachedInputTokens,
		"cacheWriteInputTokens": u.CacheWriteInputTokens, "outputTokens": u.OutputTokens, "reasoningOutputTokens": u.ReasoningOutputTokens}
}

// callBegin starts the item of a tool call: a command's, an MCP tool's.
// A patch's item starts when it asks for approval or when it ends.
func (tu *turn) callBegin(call tools.Call) {
	var item map[string]any
	ws := tu.th.t.Workspace()
	switch {
	case call.Name == "exec_command":
		argv, ok := tools.ExecArgv(ws.Shell, call.Input)
		if !ok {
			return
		}
		item = commandItem(call.ID, tools.ShellJoin(argv), commandText(call.Input), ws.Cwd)
	case strings.HasPrefix(call.Name, "mcp__"):
		server, tool, _ := strings.Cut(strings.TrimPrefix(call.Name, "mcp__"), "__")
		args := json.RawMessage(call.Input)
		if !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		item = map[string]any{"type": "mcpToolCall", "id": call.ID, "server": server, "tool": tool, "status": "inProgress",
			"arguments": args, "result": nil, "error": nil, "durationMs": nil}
	default:
		if item = collabItem(call, tu.th.id); item == nil {
			return
		}
	}
	now := tu.now()
	tu.mu.Lock()
	tu.calls[call.ID] = &callItem{id: call.ID, item: item, at: now}
	tu.mu.Unlock()
	tu.notifyItem("item/started", item, now)
}

// commandText is the cmd of an exec_command call's arguments.
func commandText(input string) string {
	var a struct {
		Cmd string `json:"cmd"`
	}
	_ = json.Unmarshal([]byte(input), &a)
	return a.Cmd
}

// callEnd completes the item of a tool call.
func (tu *turn) callEnd(call tools.Call, r tools.Result) {
	tu.mu.Lock()
	ci := tu.calls[call.ID]
	delete(tu.calls, call.ID)
	tu.mu.Unlock()
	now := tu.now()
	th := tu.th
	switch {
	case r.Collab != nil:
		if ci != nil {
			completeCollab(ci.item, r)
			tu.complete(ci.item, ci.at)
		}
	case r.MCP != nil:
		if ci == nil {
			return
		}
		item := ci.item
		item["status"] = "completed"
		if r.Status != tools.StatusCompleted {
			item["status"] = "failed"
		}
		if r.MCP.Result != nil {
			item["result"] = r.MCP.Result
		}
		if r.MCP.Error != "" {
			item["error"] = map[string]any{"message": r.MCP.Error}
		}
		item["durationMs"] = now.Sub(ci.at).Milliseconds()
		tu.complete(item, ci.at)
	case call.Name == "exec_command" || call.Name == "write_stdin":
		if ci == nil {
			return
		}
		item := ci.item
		if out := r.CommandOutput; out != "" {
			th.broadcast("item/commandExecution/outputDelta", map[string]any{"threadId": th.id, "turnId": tu.id, "itemId": ci.id, "delta": out})
			item["aggregatedOutput"] = out
		}
		item["status"] = commandStatus(r)
		if r.ExitCode != nil {
			item["exitCode"] = *r.ExitCode
		}
		item["durationMs"] = now.Sub(ci.at).Milliseconds()
		tu.complete(item, ci.at)
	case call.Name == "apply_patch":
		if len(r.Files) == 0 && ci == nil {
			return
		}
		item := fileChangeItem(call.ID, th.t.Workspace().Cwd, r.Files, r.Diff)
		if ci != nil {
			if len(r.Files) == 0 {
				item["changes"] = ci.item["changes"]
			}
		} else {
			tu.notifyItem("item/started", item, now)
			ci = &callItem{at: now}
		}
		item["status"] = patchStatus(r.Status)
		tu.complete(item, ci.at)
	case call.Name == "update_plan":
		if len(r.Plan) == 0 {
			return
		}
		steps := []any{}
		for _, s := range r.Plan {
			st := map[string]string{"completed": "completed", "in_progress": "inProgress"}[s.Status]
			if st == "" {
				st = "pending"
			}
			steps = append(steps, map[string]any{"step": s.Step, "status": st})
		}
		th.broadcast("turn/plan/updated", map[string]any{"threadId": th.id, "turnId": tu.id, "explanation": nil, "plan": steps})
	}
}

// commandStatus is a command's CommandExecutionStatus.
func commandStatus(r tools.Result) string {
	switch {
	case r.Status == tools.StatusDeclined:
		return "declined"
	case r.Status == tools.StatusCompleted && (r.ExitCode == nil || *r.ExitCode == 0):
		return "completed"
	}
	return "failed"
}

// patchStatus is a patch's PatchApplyStatus.
func patchStatus(s tools.Status) string {
	switch s {
	case tools.StatusCompleted:
		return "completed"
	case tools.StatusDeclined:
		return "declined"
	}
	return "failed"
}

// approvalRequest is the server request asking about req, starting the
// patch's item it is about.
func (tu *turn) approvalRequest(req tools.ApprovalRequest) (string, map[string]any) {
	now := tu.now()
	th := tu.th
	p := map[string]any{"threadId": th.id, "turnId": tu.id, "itemId": req.CallID, "startedAtMs": now.UnixMilli()}
	var reason any
	if req.Reason != "" {
		reason = req.Reason
	}
	p["reason"] = reason
	switch req.Kind {
	case "patch":
		tu.mu.Lock()
		_, started := tu.calls[req.CallID]
		tu.mu.Unlock()
		if !started {
			item := fileChangeItem(req.CallID, th.t.Workspace().Cwd, addKinds(req.Files, req.Diff), req.Diff)
			tu.mu.Lock()
			tu.calls[req.CallID] = &callItem{id: req.CallID, item: item, at: now}
			tu.mu.Unlock()
			tu.notifyItem("item/started", item, now)
		}
		p["grantRoot"] = nil
		return "item/fileChange/requestApproval", p
	}
	cwd := req.Workdir
	if cwd == "" {
		cwd = th.t.Workspace().Cwd
	}
	p["command"], p["cwd"] = req.Command, cwd
	p["commandActions"] = []any{map[string]any{"type": "unknown", "command": req.Command}}
	return "item/commandExecution/requestApproval", p
}

// addKinds are a patch's paths as Result.Files gives them ("M path"),
// their kind told by the diff.
func addKinds(paths []string, diff string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		kind := "M"
		switch {
		case strings.Contains(diff, "--- /dev/null\n+++ b/"+p+"\n"):
			kind = "A"
		case strings.Contains(diff, "--- a/"+p+"\n+++ /dev/null\n"):
			kind = "D"
		}
		out = append(out, kind+" "+p)
	}
	return out
}

// fileChangeItem is a patch as a fileChange item: each file with its part
// of the diff.
func fileChangeItem(id, cwd string, files []string, diff string) map[string]any {
	parts := splitDiff(diff)
	changes := []any{}
	sorted := append([]string(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i][1:] < sorted[j][1:] })
	for _, f := range sorted {
		if len(f) < 3 {
			continue
		}
		rel := strings.TrimSpace(f[1:])
		kind := map[byte]string{'A': "add", 'M': "update", 'D': "delete"}[f[0]]
		k := map[string]any{"type": kind}
		if kind == "update" {
			k["move_path"] = nil
		}
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		changes = append(changes, map[string]any{"path": path, "kind": k, "diff": parts[rel]})
	}
	return map[string]any{"type": "fileChange", "id": id, "changes": changes, "status": "inProgress"}
}

// splitDiff cuts a patch's unified diff into each file's, by path.
func splitDiff(diff string) map[string]string {
	out := map[string]string{}
	var path string
	var b strings.Builder
	flush := func() {
		if path != "" {
			out[path] = b.String()
		}
		b.Reset()
	}
	lines := strings.SplitAfter(diff, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			flush()
			from := strings.TrimSpace(strings.TrimPrefix(l, "--- "))
			to := strings.TrimSpace(strings.TrimPrefix(lines[i+1], "+++ "))
			path = strings.TrimPrefix(to, "b/")
			if to == "/dev/null" {
				path = strings.TrimPrefix(from, "a/")
			}
		}
		b.WriteString(l)
	}
	flush()
	return out
}

// The items of a turn, as Codex's ThreadItem objects.

func userMessageItem(id, text string) map[string]any {
	return map[string]any{"type": "userMessage", "id": id, "clientId": nil,
		"content": []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}}
}

func agentMessageItem(id, text string) map[string]any {
	return map[string]any{"type": "agentMessage", "id": id, "text": text, "phase": nil, "memoryCitation": nil}
}

func reasoningItem(id, text string) map[string]any {
	summary := []string{}
	if text != "" {
		summary = append(summary, text)
	}
	return map[string]any{"type": "reasoning", "id": id, "summary": summary, "content": []string{}}
}

func commandItem(id, command, cmd, cwd string) map[string]any {
	if cmd == "" {
		cmd = command
	}
	return map[string]any{"type": "commandExecution", "id": id, "command": command, "cwd": cwd, "processId": nil,
		"source": "agent", "status": "inProgress", "commandActions": []any{map[string]any{"type": "unknown", "command": cmd}},
		"aggregatedOutput": nil, "exitCode": nil, "durationMs": nil}
}
