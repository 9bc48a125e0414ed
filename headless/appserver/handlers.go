package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
)

// handler answers a request: its result, or an error; after, when not
// nil, runs once the response is sent (a turn's notifications follow it).
type handler func(c *client, params json.RawMessage) (result any, after func(), err error)

// handlers are the methods agent implements; any other is answered with
// an error naming it.
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"initialize":              (*client).initialize,
		"thread/start":            (*client).threadStart,
		"thread/resume":           (*client).threadResume,
		"thread/fork":             (*client).threadFork,
		"thread/list":             (*client).threadList,
		"thread/read":             (*client).threadRead,
		"thread/loaded/list":      (*client).threadLoadedList,
		"thread/unsubscribe":      (*client).threadUnsubscribe,
		"thread/name/set":         (*client).threadSetName,
		"thread/turns/list":       (*client).threadTurnsList,
		"plugin/installed":        (*client).pluginInstalled,
		"thread/items/list":       (*client).threadItemsList,
		"thread/goal/get":         (*client).threadGoalGet,
		"thread/goal/set":         (*client).threadGoalSet,
		"thread/goal/clear":       (*client).threadGoalClear,
		"turn/start":              (*client).turnStart,
		"turn/interrupt":          (*client).turnInterrupt,
		"turn/steer":              (*client).turnSteer,
		"model/list":              (*client).modelList,
		"account/read":            (*client).accountRead,
		"account/rateLimits/read": (*client).rateLimitsRead,
		"config/read":             (*client).configRead,
		"configRequirements/read": (*client).configRequirementsRead,
		"skills/list":             (*client).emptyData,
		"hooks/list":              (*client).emptyData,
		"collaborationMode/list":  (*client).collaborationModeList,
	}
}

// decode reads params into v, an invalid-params error naming what is
// wrong.
func decode(method string, params json.RawMessage, v any) error {
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("%s: invalid params: %v", method, err)
	}
	return nil
}

func (c *client) initialize(params json.RawMessage) (any, func(), error) {
	var p struct {
		ClientInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
		Capabilities struct {
			OptOut []string `json:"optOutNotificationMethods"`
		} `json:"capabilities"`
	}
	if err := decode("initialize", params, &p); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	if c.initialized {
		c.mu.Unlock()
		return nil, nil, &rpcError{Code: codeInvalidRequest, Message: "already initialized"}
	}
	c.initialized, c.name = true, p.ClientInfo.Name
	for _, m := range p.Capabilities.OptOut {
		c.optOut[m] = true
	}
	c.mu.Unlock()
	ua := "agent/" + c.s.opts.Version
	if p.ClientInfo.Name != "" {
		ua += " (" + p.ClientInfo.Name + "; " + p.ClientInfo.Version + ")"
	}
	return map[string]any{"userAgent": ua, "codexHome": c.s.opts.App.Home(),
		"platformFamily": platformFamily(), "platformOs": runtime.GOOS}, nil, nil
}

// threadParams are the settings thread/start, thread/resume and
// thread/fork share.
type threadParams struct {
	ThreadID              string          `json:"threadId"`
	Model                 *string         `json:"model"`
	Cwd                   *string         `json:"cwd"`
	ApprovalPolicy        json.RawMessage `json:"approvalPolicy"`
	Sandbox               *string         `json:"sandbox"`
	BaseInstructions      *string         `json:"baseInstructions"`
	DeveloperInstructions *string         `json:"developerInstructions"`
	Config                map[string]any  `json:"config"`
	Ephemeral             *bool           `json:"ephemeral"`
	LastTurnID            *string         `json:"lastTurnId"`
}

// spec is p as the app's Spec, within what the config allows: a sandbox
// wider than the config's is narrowed to it, an approval policy that asks
// less than untrusted's is not taken from an untrusted config; what agent
// does not apply is named in warnings.
func (c *client) spec(p threadParams) (app.Spec, []string, error) {
	var sp app.Spec
	var warn []string
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	sp.Model, sp.Cwd = str(p.Model), str(p.Cwd)
	sp.BaseInstructions, sp.DeveloperInstructions = str(p.BaseInstructions), str(p.DeveloperInstructions)
	policy, err := approvalPolicy(p.ApprovalPolicy)
	if err != nil {
		return sp, nil, err
	}
	ws := c.s.opts.App.Workspace()
	if policy != "" && ws.Policy == tools.PolicyUntrusted && policy != tools.PolicyUntrusted {
		warn = append(warn, fmt.Sprintf("approval policy %s not applied: agent's config asks for untrusted, which a client cannot loosen", policy))
		policy = ""
	}
	sp.ApprovalPolicy = policy
	if mode := str(p.Sandbox); mode != "" {
		m, err := sandboxMode(mode)
		if err != nil {
			return sp, nil, err
		}
		if sandboxRank(m) > sandboxRank(ws.Sandbox.Mode) {
			warn = append(warn, fmt.Sprintf("sandbox %s not applied: it is wider than agent's config (%s), which a client cannot widen", m, modeOf(ws.Sandbox.Mode)))
		} else {
			sp.Sandbox = string(m)
		}
	}
	if p.Ephemeral != nil && *p.Ephemeral {
		warn = append(warn, "ephemeral threads are not supported: this thread is recorded")
	}
	var ignored []string
	for k, v := range p.Config {
		switch k {
		case "model_reasoning_effort":
			if s, ok := v.(string); ok {
				sp.ReasoningEffort = s
				continue
			}
		case "model":
			if s, ok := v.(string); ok && sp.Model == "" {
				sp.Model = s
				continue
			}
		}
		ignored = append(ignored, k)
	}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		warn = append(warn, "config overrides not applied by agent: "+strings.Join(ignored, ", "))
	}
	return sp, warn, nil
}

// approvalPolicy reads an AskForApproval ("" when absent).
func approvalPolicy(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", invalidParams("approvalPolicy %s: agent supports untrusted, on-request, on-failure and never, not granular policies", raw)
	}
	p, err := tools.ParsePolicy(s)
	if err != nil {
		return "", invalidParams("approvalPolicy: %v", err)
	}
	return p, nil
}

// sandboxMode reads a SandboxMode.
func sandboxMode(s string) (sandbox.Mode, error) {
	switch m := sandbox.Mode(s); m {
	case sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.DangerFullAccess:
		return m, nil
	}
	return "", invalidParams("sandbox %q: one of read-only, workspace-write, danger-full-access", s)
}

func modeOf(m sandbox.Mode) sandbox.Mode {
	if m == "" {
		return sandbox.ReadOnly
	}
	return m
}

// sandboxRank orders sandbox modes by what they allow.
func sandboxRank(m sandbox.Mode) int {
	switch modeOf(m) {
	case sandbox.WorkspaceWrite:
		return 1
	case sandbox.DangerFullAccess:
		return 2
	}
	return 0
}

// sandboxJSON is a sandbox policy as Codex's SandboxPolicy.
func sandboxJSON(p sandbox.Policy) map[string]any {
	switch modeOf(p.Mode) {
	case sandbox.DangerFullAccess:
		return map[string]any{"type": "dangerFullAccess"}
	case sandbox.WorkspaceWrite:
		roots := append([]string{}, p.WritableRoots...)
		return map[string]any{"type": "workspaceWrite", "writableRoots": roots, "networkAccess": p.NetworkAccess,
			"excludeTmpdirEnvVar": false, "excludeSlashTmp": false}
	}
	return map[string]any{"type": "readOnly", "networkAccess": false}
}

// opened is the response to thread/start, thread/resume and thread/fork.
func (th *thread) opened(withTurns bool) map[string]any {
	ws := th.t.Workspace()
	st := th.t.Settings()
	var effort any
	if e := st.Sampling.ReasoningEffort; e != "" {
		effort = e
	}
	return map[string]any{"thread": th.json(withTurns), "model": st.Sampling.Model, "modelProvider": th.t.Provider().Provider,
		"serviceTier": nil, "cwd": ws.Cwd, "approvalPolicy": st.ApprovalPolicy, "approvalsReviewer": "user",
		"sandbox": sandboxJSON(ws.Sandbox), "reasoningEffort": effort, "instructionSources": []any{}, "disabledPluginIds": []any{}}
}

// open opens a thread for thread/start, thread/resume or thread/fork.
func (c *client) open(method string, params json.RawMessage, fork bool) (any, func(), error) {
	var p threadParams
	if err := decode(method, params, &p); err != nil {
		return nil, nil, err
	}
	if method != "thread/start" && p.ThreadID == "" {
		return nil, nil, invalidParams("%s: threadId is required", method)
	}
	if method == "thread/resume" {
		if th := c.s.loaded(p.ThreadID); th != nil {
			if th.subscribe(c) {
				return th.opened(true), nil, nil
			}
			// Its last client left and it is closing: opened anew once
			// closed.
			select {
			case <-th.ended:
			case <-c.ctx.Done():
				return nil, nil, c.ctx.Err()
			}
		}
	}
	sp, warn, err := c.spec(p)
	if err != nil {
		return nil, nil, err
	}
	if fork {
		sp.Fork, sp.ForkTurns = true, app.AllTurns
		if p.LastTurnID != nil && *p.LastTurnID != "" {
			if sp.ForkTurns, err = c.turnsThrough(p.ThreadID, *p.LastTurnID); err != nil {
				return nil, nil, err
			}
		}
	}
	th, err := c.s.openThread(c.ctx, c, openSpec{spec: sp, id: p.ThreadID})
	if err != nil {
		return nil, nil, err
	}
	res := th.opened(method != "thread/start")
	return res, func() {
		c.notify("thread/started", map[string]any{"thread": th.json(false)})
		for _, w := range warn {
			c.notify("warning", map[string]any{"threadId": th.id, "message": w})
		}
		th.syncGoal("") // a recorded goal's snapshot
		if method == "thread/resume" {
			th.continueGoal() // as Codex: a resumed thread's active goal goes on
		}
	}, nil
}

// turnsThrough is how many turns of thread id a fork through its turn
// last keeps: the recorded turns, then those this process ran.
func (c *client) turnsThrough(id, last string) (int, error) {
	var ids []string
	running := ""
	if th := c.s.loaded(id); th != nil {
		th.mu.Lock()
		for _, h := range th.history {
			ids = append(ids, h["id"].(string))
		}
		for _, tu := range th.turns {
			ids = append(ids, tu.id)
		}
		if th.turn != nil {
			running = th.turn.id
		}
		th.mu.Unlock()
	} else {
		e, err := rollout.Find(c.ctx, c.s.opts.App.Home(), id)
		if err != nil {
			return 0, invalidParams("thread/fork: no thread %s: %v", id, err)
		}
		ro, err := rollout.Load(e.Path)
		if err != nil {
			return 0, err
		}
		for _, t := range recordedTurns(ro) {
			ids = append(ids, t["id"].(string))
		}
	}
	if last == running {
		return 0, invalidParams("thread/fork: turn %s is in progress: a fork goes through a turn that ended", last)
	}
	for i, t := range ids {
		if t == last {
			return i + 1, nil
		}
	}
	return 0, invalidParams("thread/fork: thread %s has no turn %s", id, last)
}

// threadSetName names a loaded thread (recorded: `agent resume` and
// thread/list show it) and tells its subscribers.
func (c *client) threadSetName(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string `json:"threadId"`
		Name     string `json:"name"`
	}
	if err := decode("thread/name/set", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("thread/name/set", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	name, err := th.t.Rename(p.Name)
	if err != nil {
		return nil, nil, invalidParams("thread/name/set: %v", err)
	}
	return map[string]any{}, func() {
		th.broadcast("thread/name/updated", map[string]any{"threadId": th.id, "threadName": name})
	}, nil
}

func (c *client) threadStart(params json.RawMessage) (any, func(), error) {
	return c.open("thread/start", params, false)
}

func (c *client) threadResume(params json.RawMessage) (any, func(), error) {
	return c.open("thread/resume", params, false)
}

func (c *client) threadFork(params json.RawMessage) (any, func(), error) {
	return c.open("thread/fork", params, true)
}

// entryJSON is a recorded thread not open here, as a Thread.
func (c *client) entryJSON(e rollout.Entry) map[string]any {
	if th := c.s.loaded(e.ID); th != nil {
		return th.json(false)
	}
	var name any
	if e.Name != "" {
		name = e.Name
	}
	return map[string]any{"id": e.ID, "sessionId": e.ID, "forkedFromId": nil, "parentThreadId": nil, "preview": e.Title,
		"ephemeral": false, "projectId": nil, "modelProvider": "", "model": nil, "createdAt": e.Created.Unix(),
		"updatedAt": e.Updated.Unix(), "recencyAt": e.Updated.Unix(), "status": map[string]any{"type": "notLoaded"},
		"path": e.Path, "cwd": e.Cwd, "cliVersion": c.s.opts.Version, "source": "appServer", "name": name, "turns": []any{},
		"gitInfo": nil, "agentNickname": nil, "agentRole": nil}
}

// threadListMax caps one page of thread/list.
const threadListMax = 100

func (c *client) threadList(params json.RawMessage) (any, func(), error) {
	var p struct {
		Limit    *int            `json:"limit"`
		Cwd      json.RawMessage `json:"cwd"`
		Archived *bool           `json:"archived"`
		Search   *string         `json:"searchTerm"`
	}
	if err := decode("thread/list", params, &p); err != nil {
		return nil, nil, err
	}
	data := []any{}
	if p.Archived != nil && *p.Archived {
		return map[string]any{"data": data, "nextCursor": nil}, nil, nil // agent archives nothing
	}
	limit := threadListMax
	if p.Limit != nil && *p.Limit > 0 && *p.Limit < limit {
		limit = *p.Limit
	}
	var cwds []string
	if len(p.Cwd) > 0 && string(p.Cwd) != "null" {
		var one string
		if json.Unmarshal(p.Cwd, &one) == nil {
			cwds = []string{one}
		} else if err := json.Unmarshal(p.Cwd, &cwds); err != nil {
			return nil, nil, invalidParams("thread/list: cwd: %v", err)
		}
	}
	ents, err := rollout.List(c.ctx, c.s.opts.App.Home(), "", true, 0)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if len(data) == limit {
			break
		}
		if len(cwds) > 0 && !contains(cwds, e.Cwd) {
			continue
		}
		if p.Search != nil && *p.Search != "" && !strings.Contains(strings.ToLower(e.Label()), strings.ToLower(*p.Search)) {
			continue
		}
		data = append(data, c.entryJSON(e))
	}
	return map[string]any{"data": data, "nextCursor": nil, "backwardsCursor": nil}, nil, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *client) threadRead(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID     string `json:"threadId"`
		IncludeTurns bool   `json:"includeTurns"`
	}
	if err := decode("thread/read", params, &p); err != nil {
		return nil, nil, err
	}
	if th := c.s.loaded(p.ThreadID); th != nil {
		return map[string]any{"thread": th.json(p.IncludeTurns)}, nil, nil
	}
	e, err := rollout.Find(c.ctx, c.s.opts.App.Home(), p.ThreadID)
	if err != nil {
		return nil, nil, invalidParams("thread/read: no thread %s: %v", p.ThreadID, err)
	}
	j := c.entryJSON(e)
	if p.IncludeTurns {
		ro, err := rollout.Load(e.Path)
		if err != nil {
			return nil, nil, err
		}
		turns := []any{}
		for _, t := range recordedTurns(ro) {
			turns = append(turns, t)
		}
		j["turns"] = turns
	}
	return map[string]any{"thread": j}, nil, nil
}

// threadTurnsList pages through a thread's turns (newest first unless
// sortDirection is asc), each with its items as itemsView asks (summary:
// the final answer).
func (c *client) threadTurnsList(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID  string  `json:"threadId"`
		Cursor    *string `json:"cursor"`
		Limit     *int    `json:"limit"`
		ItemsView *string `json:"itemsView"`
		Sort      *string `json:"sortDirection"`
	}
	if err := decode("thread/turns/list", params, &p); err != nil {
		return nil, nil, err
	}
	var turns []map[string]any
	if th := c.s.loaded(p.ThreadID); th != nil {
		th.mu.Lock()
		turns = append(turns, th.history...)
		live := append([]*turn(nil), th.turns...)
		th.mu.Unlock()
		for _, tu := range live {
			turns = append(turns, tu.json(true))
		}
	} else {
		e, err := rollout.Find(c.ctx, c.s.opts.App.Home(), p.ThreadID)
		if err != nil {
			return nil, nil, invalidParams("thread/turns/list: no thread %s: %v", p.ThreadID, err)
		}
		ro, err := rollout.Load(e.Path)
		if err != nil {
			return nil, nil, err
		}
		turns = recordedTurns(ro)
	}
	if p.Sort == nil || *p.Sort != "asc" {
		slices.Reverse(turns)
	}
	start := 0
	if p.Cursor != nil && *p.Cursor != "" {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(turns) {
			return nil, nil, invalidParams("thread/turns/list: cursor %q is not one agent gave", *p.Cursor)
		}
		start = n
	}
	end := len(turns)
	if p.Limit != nil && *p.Limit > 0 && start+*p.Limit < end {
		end = start + *p.Limit
	}
	view := "summary"
	if p.ItemsView != nil && *p.ItemsView != "" {
		view = *p.ItemsView
	}
	data := []any{}
	for _, t := range turns[start:end] {
		data = append(data, turnView(t, view))
	}
	var next, back any
	if end < len(turns) {
		next = strconv.Itoa(end)
	}
	if end > start {
		back = strconv.Itoa(start)
	}
	return map[string]any{"data": data, "nextCursor": next, "backwardsCursor": back}, nil, nil
}

// turnView is turn t (its items in full) with the items view asks for.
func turnView(t map[string]any, view string) map[string]any {
	out := make(map[string]any, len(t)+1)
	for k, v := range t {
		out[k] = v
	}
	if _, ok := out["rootTurnId"]; !ok {
		out["rootTurnId"] = out["id"]
	}
	items, _ := t["items"].([]any)
	switch view {
	case "full":
	case "notLoaded":
		items = []any{}
	default:
		view = "summary"
		var last []any
		for _, it := range items {
			if m, ok := it.(map[string]any); ok && m["type"] == "agentMessage" {
				last = []any{it}
			}
		}
		items = last
		if items == nil {
			items = []any{}
		}
	}
	out["items"], out["itemsView"] = items, view
	return out
}

// pluginInstalled answers that no plugin is installed: agent has none.
func (c *client) pluginInstalled(json.RawMessage) (any, func(), error) {
	return map[string]any{"marketplaces": []any{}, "marketplaceLoadErrors": []any{}}, nil, nil
}

func (c *client) threadLoadedList(json.RawMessage) (any, func(), error) {
	return map[string]any{"data": c.s.loadedIDs(), "nextCursor": nil}, nil, nil
}

func (c *client) threadUnsubscribe(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string `json:"threadId"`
	}
	if err := decode("thread/unsubscribe", params, &p); err != nil {
		return nil, nil, err
	}
	th := c.s.loaded(p.ThreadID)
	if th == nil {
		return map[string]any{"status": "notLoaded"}, nil, nil
	}
	c.mu.Lock()
	_, subscribed := c.subscribed[p.ThreadID]
	c.mu.Unlock()
	if !subscribed {
		return map[string]any{"status": "notSubscribed"}, nil, nil
	}
	return map[string]any{"status": "unsubscribed"}, func() { go th.unsubscribe(c) }, nil
}

// subscribedThread is the loaded thread of id, or an error naming it.
func (c *client) subscribedThread(method, id string) (*thread, error) {
	th := c.s.loaded(id)
	if th == nil {
		return nil, invalidParams("%s: thread %s is not loaded: thread/start or thread/resume it first", method, id)
	}
	return th, nil
}

func (c *client) threadItemsList(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string  `json:"threadId"`
		TurnID   *string `json:"turnId"`
	}
	if err := decode("thread/items/list", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("thread/items/list", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	th.mu.Lock()
	turns := append([]*turn(nil), th.turns...)
	th.mu.Unlock()
	data := []any{}
	for _, tu := range turns {
		if p.TurnID != nil && *p.TurnID != "" && tu.id != *p.TurnID {
			continue
		}
		tu.mu.Lock()
		for _, e := range tu.items {
			data = append(data, map[string]any{"turnId": tu.id, "item": e.item,
				"startedAtMs": e.started.UnixMilli(), "completedAtMs": e.completed.UnixMilli()})
		}
		tu.mu.Unlock()
	}
	return map[string]any{"data": data, "nextCursor": nil, "backwardsCursor": nil}, nil, nil
}

// userInput is a turn's input: its text, and the images agent attaches.
func userInput(method string, raw []json.RawMessage) (text string, images []string, err error) {
	var parts []string
	for _, r := range raw {
		var in struct {
			Type string `json:"type"`
			Text string `json:"text"`
			URL  string `json:"url"`
			Path string `json:"path"`
		}
		if err := json.Unmarshal(r, &in); err != nil {
			return "", nil, invalidParams("%s: input: %v", method, err)
		}
		switch in.Type {
		case "text":
			parts = append(parts, in.Text)
		case "image":
			if in.URL == "" {
				return "", nil, invalidParams("%s: an image input without a url is not supported", method)
			}
			images = append(images, in.URL)
		case "localImage":
			url, err := dataURL(in.Path)
			if err != nil {
				return "", nil, invalidParams("%s: localImage %s: %v", method, in.Path, err)
			}
			images = append(images, url)
		default:
			return "", nil, invalidParams("%s: input of type %q is not supported by agent", method, in.Type)
		}
	}
	return strings.Join(parts, "\n"), images, nil
}

func (c *client) turnStart(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID       string            `json:"threadId"`
		Input          []json.RawMessage `json:"input"`
		Model          *string           `json:"model"`
		Effort         *string           `json:"effort"`
		Summary        *string           `json:"summary"`
		ApprovalPolicy json.RawMessage   `json:"approvalPolicy"`
		Cwd            *string           `json:"cwd"`
		// CollaborationMode is Codex's experimental collaborationMode:
		// plan or default, with settings that take precedence over model
		// and effort.
		CollaborationMode *collaborationMode `json:"collaborationMode"`
	}
	if err := decode("turn/start", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("turn/start", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	text, images, err := userInput("turn/start", p.Input)
	if err != nil {
		return nil, nil, err
	}
	policy, err := approvalPolicy(p.ApprovalPolicy)
	if err != nil {
		return nil, nil, err
	}
	var warn []string
	if policy != "" && c.s.opts.App.Workspace().Policy == tools.PolicyUntrusted && policy != tools.PolicyUntrusted {
		warn = append(warn, fmt.Sprintf("approval policy %s not applied: agent's config asks for untrusted, which a client cannot loosen", policy))
		policy = ""
	}
	if p.Cwd != nil && *p.Cwd != "" && *p.Cwd != th.t.Workspace().Cwd {
		warn = append(warn, "cwd "+*p.Cwd+" not applied: a thread keeps the directory it started in ("+th.t.Workspace().Cwd+")")
	}
	if cm := p.CollaborationMode; cm != nil {
		w, err := cm.apply(th.t)
		if err != nil {
			return nil, nil, err
		}
		warn = append(warn, w...)
		if cm.Settings.Model != "" {
			p.Model = &cm.Settings.Model
		}
		if cm.Settings.ReasoningEffort != nil {
			p.Effort = cm.Settings.ReasoningEffort
		}
	}
	th.t.Configure(func(st *session.Settings) {
		if p.Model != nil && *p.Model != "" {
			st.Sampling.Model = *p.Model
		}
		if p.Effort != nil && *p.Effort != "" {
			st.Sampling.ReasoningEffort = *p.Effort
		}
		if p.Summary != nil && *p.Summary != "" {
			st.Sampling.ReasoningSummary = *p.Summary
		}
		if policy != "" {
			st.ApprovalPolicy = policy
		}
	})
	tu, err := th.startTurn(c.ctx, text)
	if err != nil {
		return nil, nil, err
	}
	if len(images) > 0 {
		th.t.AttachImages(images...)
	}
	return map[string]any{"turn": tu.json(false)}, func() {
		c.subscribe(th)
		for _, w := range warn {
			th.broadcast("warning", map[string]any{"threadId": th.id, "message": w})
		}
		go tu.run()
	}, nil
}

// subscribe subscribes c to th (a turn started on a thread it resumed
// elsewhere).
func (c *client) subscribe(th *thread) { th.subscribe(c) }

func (c *client) turnInterrupt(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
	}
	if err := decode("turn/interrupt", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("turn/interrupt", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	th.mu.Lock()
	tu := th.turn
	th.mu.Unlock()
	if tu == nil || (p.TurnID != "" && tu.id != p.TurnID) {
		return nil, nil, invalidParams("turn/interrupt: turn %s of thread %s is not in progress", p.TurnID, p.ThreadID)
	}
	tu.cancel()
	return map[string]any{}, nil, nil
}

// turnSteer adds input to the running turn (as Codex: sent with the
// turn's next model request); the errors are Codex's.
func (c *client) turnSteer(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID       string            `json:"threadId"`
		ExpectedTurnID string            `json:"expectedTurnId"`
		Input          []json.RawMessage `json:"input"`
	}
	if err := decode("turn/steer", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("turn/steer", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	text, images, err := userInput("turn/steer", p.Input)
	if err != nil {
		return nil, nil, err
	}
	if len(images) > 0 {
		return nil, nil, invalidParams("turn/steer: agent adds text to a running turn, not images")
	}
	th.mu.Lock()
	tu := th.turn
	th.mu.Unlock()
	if tu == nil {
		return nil, nil, &rpcError{Code: codeInvalidRequest, Message: "no active turn to steer"}
	}
	if tu.id != p.ExpectedTurnID {
		return nil, nil, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("expected active turn id `%s` but found `%s`", p.ExpectedTurnID, tu.id)}
	}
	if err := tu.steer(text); err != nil {
		return nil, nil, &rpcError{Code: codeInvalidRequest, Message: err.Error()}
	}
	return map[string]any{"turnId": tu.id}, func() {
		user := userMessageItem(rollout.NewID(), text)
		now := tu.now()
		tu.notifyItem("item/started", user, now)
		tu.complete(user, now)
	}, nil
}

func (c *client) modelList(params json.RawMessage) (any, func(), error) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	var names []string
	if c.s.opts.Models != nil {
		names = c.s.opts.Models(ctx)
	}
	def := c.s.opts.App.Config().Model
	if def != "" && !contains(names, def) {
		names = append([]string{def}, names...)
	}
	data := []any{}
	for _, n := range names {
		data = append(data, map[string]any{"id": n, "model": n, "displayName": n, "description": "", "hidden": false,
			"isDefault": n == def, "defaultReasoningEffort": "medium", "upgrade": nil,
			"supportedReasoningEfforts": []any{
				map[string]any{"reasoningEffort": "low", "description": "low"},
				map[string]any{"reasoningEffort": "medium", "description": "medium"},
				map[string]any{"reasoningEffort": "high", "description": "high"},
			}})
	}
	return map[string]any{"data": data, "nextCursor": nil}, nil, nil
}

func (c *client) accountRead(json.RawMessage) (any, func(), error) {
	p := c.s.opts.App.Provider()
	var acct any
	if c.s.opts.Account != nil {
		if a := c.s.opts.Account(); a != nil {
			acct = a
		}
	}
	return map[string]any{"account": acct, "requiresOpenaiAuth": p.RequiresOpenAIAuth}, nil, nil
}

func (c *client) rateLimitsRead(json.RawMessage) (any, func(), error) {
	// agent keeps no account rate-limit snapshot: every window unknown.
	return map[string]any{"rateLimits": map[string]any{"limitId": nil, "limitName": nil, "primary": nil, "secondary": nil,
		"credits": nil, "planType": nil}, "rateLimitsByLimitId": nil}, nil, nil
}

func (c *client) configRead(json.RawMessage) (any, func(), error) {
	a := c.s.opts.App
	cfg := a.Config()
	ws := a.Workspace()
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return map[string]any{"config": map[string]any{
		"model": str(cfg.Model), "model_provider": str(a.Provider().ID), "approval_policy": str(ws.Policy),
		"sandbox_mode": string(modeOf(ws.Sandbox.Mode)), "model_reasoning_effort": str(cfg.ModelReasoningEffort),
	}, "origins": map[string]any{}}, nil, nil
}

func (c *client) configRequirementsRead(json.RawMessage) (any, func(), error) {
	return map[string]any{"requirements": nil}, nil, nil
}

// emptyData answers a list agent has nothing in (skills, hooks and
// collaboration modes are not offered to app-server clients).
func (c *client) emptyData(json.RawMessage) (any, func(), error) {
	return map[string]any{"data": []any{}}, nil, nil
}

// collaborationMode is turn/start's collaborationMode (Codex's
// CollaborationMode): the mode, and settings that take precedence over
// the turn's model and effort.
type collaborationMode struct {
	Mode     string `json:"mode"`
	Settings struct {
		Model                 string  `json:"model"`
		ReasoningEffort       *string `json:"reasoning_effort"`
		DeveloperInstructions *string `json:"developer_instructions"`
	} `json:"settings"`
}

// apply makes the mode the thread's from this turn on (plan mode: a
// read-only sandbox, patches refused, [app.Thread.SetMode]); it returns
// the warnings about what it does not apply.
func (cm *collaborationMode) apply(t *app.Thread) (warn []string, _ error) {
	if _, ok := session.ParseMode(cm.Mode); !ok || cm.Mode == "" {
		return nil, invalidParams("turn/start: collaborationMode.mode %q: want plan or default", cm.Mode)
	}
	if _, err := t.SetMode(cm.Mode); err != nil {
		return nil, invalidParams("turn/start: collaborationMode: %v", err)
	}
	if d := cm.Settings.DeveloperInstructions; d != nil && *d != "" {
		warn = append(warn, "collaborationMode.settings.developer_instructions not applied: agent tells the model the mode in its own words")
	}
	return warn, nil
}

// collaborationModeList is collaborationMode/list: Codex's two presets.
func (c *client) collaborationModeList(json.RawMessage) (any, func(), error) {
	return map[string]any{"data": []any{
		map[string]any{"name": "Plan", "mode": "plan", "model": nil, "reasoning_effort": "medium"},
		map[string]any{"name": "Default", "mode": "default", "model": nil, "reasoning_effort": nil},
	}}, nil, nil
}
