package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Goals, as Codex's /goal: an objective the session pursues over turns
// (the model's create_goal, update_goal and get_goal, the chat's /goal,
// the app-server's thread/goal methods), kept in the history and so in
// the rollout, continued by a resumed session. Unlike Codex's, a goal is
// always bounded: by tokens, wall time and turns ([GoalLimits]); a budget
// spent stops it with a message naming the budget, the goal kept to
// resume.

// GoalStatus is a goal's state, as Codex's ThreadGoalStatus.
type GoalStatus string

// The goal states.
const (
	GoalActive        GoalStatus = "active"
	GoalPaused        GoalStatus = "paused"
	GoalBlocked       GoalStatus = "blocked"
	GoalUsageLimited  GoalStatus = "usageLimited"
	GoalBudgetLimited GoalStatus = "budgetLimited"
	GoalComplete      GoalStatus = "complete"
)

// Goal is the session's objective and what pursuing it has spent.
type Goal struct {
	Objective string     `json:"objective"`
	Status    GoalStatus `json:"status"`
	// TokenBudget, TurnBudget and TimeBudget bound it; TokensUsed,
	// TurnsUsed and TimeUsed are what it spent (continuation turns).
	TokenBudget int64         `json:"token_budget"`
	TokensUsed  int64         `json:"tokens_used"`
	TurnBudget  int           `json:"turn_budget"`
	TurnsUsed   int           `json:"turns_used"`
	TimeBudget  time.Duration `json:"time_budget"`
	TimeUsed    time.Duration `json:"time_used"`
	// Reason says why it stopped (a budget spent, the model blocked).
	Reason  string    `json:"reason,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Default goal budgets: none is unbounded.
const (
	DefaultGoalTokens   = 2_000_000
	DefaultGoalTurns    = 50
	DefaultGoalWallTime = 2 * time.Hour
)

// GoalLimits are the budgets of a goal ([Options].Goals): config's
// [goals] max_goal_token_budget (Codex's key) caps the tokens a goal may
// have; agent's max_goal_turns and max_goal_wall_time_seconds the rest.
// Zero fields take the defaults.
type GoalLimits struct {
	// Enabled offers the goal tools and allows goals ([features] goals,
	// on by default in the app, as in Codex).
	Enabled  bool
	Tokens   int64
	Turns    int
	WallTime time.Duration
}

// withDefaults fills the zero budgets.
func (l GoalLimits) withDefaults() GoalLimits {
	if l.Tokens <= 0 {
		l.Tokens = DefaultGoalTokens
	}
	if l.Turns <= 0 {
		l.Turns = DefaultGoalTurns
	}
	if l.WallTime <= 0 {
		l.WallTime = DefaultGoalWallTime
	}
	return l
}

// GoalUpdated says the session's goal changed; Message, when set, is
// what to tell the user (a budget spent, the goal done).
type GoalUpdated struct {
	Goal    Goal
	Message string
}

func (GoalUpdated) isEvent() {}

// goalTag wraps the developer message recording the goal's state: the
// model knows its goal, and a resumed session finds it ([goalOf]).
const goalTag = "goal_state"

// goalMessage is the history item recording g.
func goalMessage(g Goal) transport.Item {
	b, _ := json.Marshal(g)
	text := "<" + goalTag + ">" + string(b) + "</" + goalTag + ">\n" +
		"The session's goal (status " + string(g.Status) + "): " + g.Objective
	it := transport.DeveloperMessage(text)
	it.Origin = transport.OriginContext
	return it
}

// goalOf is the goal a history leaves: that of its last goal message.
func goalOf(history []transport.Item) *Goal {
	for i := len(history) - 1; i >= 0; i-- {
		it := history[i]
		if it.Type != "message" || it.Role != "developer" {
			continue
		}
		text := it.Text()
		if !strings.HasPrefix(text, "<"+goalTag+">") {
			continue
		}
		end := strings.Index(text, "</"+goalTag+">")
		if end < 0 {
			return nil
		}
		var g Goal
		if json.Unmarshal([]byte(text[len(goalTag)+2:end]), &g) != nil || g.Objective == "" {
			return nil
		}
		return &g
	}
	return nil
}

// Goal returns the session's goal, nil when it has none. It is safe to
// call from any goroutine.
func (s *Session) Goal() *Goal {
	s.goalMu.Lock()
	defer s.goalMu.Unlock()
	if s.goal == nil {
		return nil
	}
	g := *s.goal
	return &g
}

// setGoal records g as the session's goal (nil clears it); called while
// no turn runs, or by the goal tools on the turn's goroutine.
func (s *Session) setGoal(g *Goal) {
	s.goalMu.Lock()
	s.goal = g
	s.goalMu.Unlock()
	if g != nil {
		g.Updated = s.now()
		s.appendItems(goalMessage(*g))
	} else {
		s.appendItems(transport.DeveloperMessage("<" + goalTag + ">{}</" + goalTag + ">\nThe session's goal was cleared."))
	}
	s.sync()
}

// SetGoal makes objective the session's goal, active, with the budgets
// of [Options].Goals (tokens: budget when positive, capped by them). Call
// it while no turn runs; [Session.Pursue] then pursues it.
func (s *Session) SetGoal(objective string, tokens int64) (Goal, error) {
	if !s.opts.Goals.Enabled {
		return Goal{}, errors.New("goals are off ([features] goals = false)")
	}
	objective = strings.TrimSpace(objective)
	if objective == "" {
		return Goal{}, errors.New("a goal needs an objective")
	}
	l := s.opts.Goals.withDefaults()
	if tokens <= 0 || tokens > l.Tokens {
		tokens = l.Tokens
	}
	now := s.now()
	g := &Goal{Objective: objective, Status: GoalActive, TokenBudget: tokens, TurnBudget: l.Turns, TimeBudget: l.WallTime, Created: now}
	s.setGoal(g)
	return *g, nil
}

// SetGoalStatus changes the goal's status (the user pausing, resuming or
// ending it); resuming a goal a budget stopped gives it that budget again
// on top of what it spent. Call it while no turn runs.
func (s *Session) SetGoalStatus(st GoalStatus) (Goal, error) {
	g := s.Goal()
	if g == nil {
		return Goal{}, errors.New("the session has no goal")
	}
	if st == GoalActive && g.Status == GoalBudgetLimited {
		l := s.opts.Goals.withDefaults()
		switch {
		case g.TokensUsed >= g.TokenBudget:
			g.TokenBudget = g.TokensUsed + l.Tokens
		case g.TurnsUsed >= g.TurnBudget:
			g.TurnBudget = g.TurnsUsed + l.Turns
		case g.TimeUsed >= g.TimeBudget:
			g.TimeBudget = g.TimeUsed + l.WallTime
		}
	}
	g.Status, g.Reason = st, ""
	s.setGoal(g)
	return *g, nil
}

// ClearGoal removes the session's goal; it reports whether there was one.
func (s *Session) ClearGoal() bool {
	if s.Goal() == nil {
		return false
	}
	s.setGoal(nil)
	return true
}

// goalPrompt is the user message of a goal's continuation turn.
func goalPrompt(g Goal) string {
	return fmt.Sprintf("Continue working toward the goal: %s\n\nBudget left: %d tokens, %d turns, %s. "+
		"When the goal is achieved, call update_goal with status \"complete\"; if you cannot go on without the user, call it with status \"blocked\" and say why.",
		g.Objective, max(g.TokenBudget-g.TokensUsed, 0), max(g.TurnBudget-g.TurnsUsed, 0), (g.TimeBudget - g.TimeUsed).Round(time.Second))
}

// Spent names the budget g has spent, "" while none is.
func (g Goal) Spent() string {
	switch {
	case g.TokensUsed >= g.TokenBudget:
		return fmt.Sprintf("token budget (%d tokens)", g.TokenBudget)
	case g.TurnsUsed >= g.TurnBudget:
		return fmt.Sprintf("turn budget (%d turns)", g.TurnBudget)
	case g.TimeUsed >= g.TimeBudget:
		return fmt.Sprintf("wall-time budget (%s)", g.TimeBudget)
	}
	return ""
}

// Pursue continues the session's active goal, one continuation turn after
// another ([Session.PursueTurn]), until the model marks it complete or
// blocked, a budget is spent (the goal stops, budgetLimited, resumable),
// the user stops it (ctx ends: paused), or a turn fails: a usage limit
// pauses it (usageLimited) until the reset, any other failure pauses it.
// It returns the failed turn's error. Without an active goal it returns
// at once.
func (s *Session) Pursue(ctx context.Context, emit func(Event)) error {
	for {
		more, err := s.PursueTurn(ctx, emit)
		if err != nil || !more {
			return err
		}
	}
}

// PursueTurn runs one continuation turn of the session's active goal and
// reports whether the goal is still active after it (another turn is
// due). A spent budget stops the goal instead (budgetLimited, a message
// naming the budget) and runs no turn; a failed turn pauses the goal as
// [Session.Pursue] says and returns its error. Without an active goal it
// runs nothing and reports false. Call it while no other turn runs.
func (s *Session) PursueTurn(ctx context.Context, emit func(Event)) (bool, error) {
	g := s.Goal()
	if g == nil || g.Status != GoalActive {
		return false, nil
	}
	if b := g.Spent(); b != "" {
		g.Status, g.Reason = GoalBudgetLimited, "its "+b+" is spent"
		s.setGoal(g)
		emit(GoalUpdated{Goal: *g, Message: "Goal stopped: its " + b + " is spent; /goal resume gives it another budget"})
		return false, nil
	}
	start, before := s.now(), s.total.TotalTokens
	err := s.Turn(ctx, goalPrompt(*g), emit)
	cur := s.Goal()
	if cur == nil {
		return false, err
	}
	cur.TokensUsed += s.total.TotalTokens - before
	cur.TurnsUsed++
	cur.TimeUsed += s.now().Sub(start)
	if err != nil && cur.Status == GoalActive {
		cur.Status, cur.Reason = GoalPaused, "a turn failed: "+err.Error()
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			cur.Reason = "stopped by the user"
		} else if f := modelclient.OutcomeOf(err).Failure; f.Kind == modelclient.KindUsageLimit {
			cur.Status, cur.Reason = GoalUsageLimited, "the usage limit was reached"
			if !f.ResetsAt.IsZero() {
				cur.Reason += " (it resets at " + f.ResetsAt.Local().Format("15:04:05") + ")"
			}
		}
	}
	s.setGoal(cur)
	if err != nil {
		emit(GoalUpdated{Goal: *cur, Message: "Goal paused: " + cur.Reason})
		return false, err
	}
	return cur.Status == GoalActive, nil
}

// SetGoalTokenBudget gives the goal a token budget of tokens (capped by
// [Options].Goals' maximum; 0 or less: the maximum). Call it while no
// turn runs.
func (s *Session) SetGoalTokenBudget(tokens int64) (Goal, error) {
	g := s.Goal()
	if g == nil {
		return Goal{}, errors.New("the session has no goal")
	}
	l := s.opts.Goals.withDefaults()
	if tokens <= 0 || tokens > l.Tokens {
		tokens = l.Tokens
	}
	g.TokenBudget = tokens
	s.setGoal(g)
	return *g, nil
}

// goalEnded is the event of the model marking g complete or blocked.
func goalEnded(g Goal) GoalUpdated {
	if g.Status == GoalComplete {
		return GoalUpdated{Goal: g, Message: "Goal complete: " + g.Objective}
	}
	return GoalUpdated{Goal: g, Message: "Goal blocked: " + nonEmpty(g.Reason, "the model cannot go on without you")}
}

// goalSpecs are the goal tools the model is offered: Codex's create_goal,
// update_goal and get_goal.
func goalSpecs() []json.RawMessage {
	spec := func(name, desc string, props map[string]any, required []string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": "function", "name": name, "description": desc, "strict": false,
			"parameters": map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}})
		return b
	}
	return []json.RawMessage{
		spec("create_goal", "Create a goal for this thread: an objective the agent keeps working toward over turns until it is complete or a budget ends it. Only one goal at a time.",
			map[string]any{"objective": map[string]any{"type": "string", "description": "What must be true when the goal is complete."},
				"token_budget": map[string]any{"type": "integer", "description": "Tokens the goal may spend (capped by the configured maximum)."}}, []string{"objective"}),
		spec("update_goal", "Mark the thread's goal complete once it is achieved, or blocked when it cannot go on without the user.",
			map[string]any{"status": map[string]any{"type": "string", "enum": []string{"complete", "blocked"}},
				"reason": map[string]any{"type": "string", "description": "Why (for blocked: what is needed)."}}, []string{"status"}),
		spec("get_goal", "Get the thread's goal: objective, status and the budget used.", map[string]any{}, []string{}),
	}
}

// goalTool answers a call of a goal tool, when c is one.
func (s *Session) goalTool(c tools.Call) (tools.Result, bool) {
	if !s.opts.Goals.Enabled {
		return tools.Result{}, false
	}
	fail := func(msg string) (tools.Result, bool) {
		return tools.Result{Output: msg, Status: tools.StatusFailed}, true
	}
	show := func(g *Goal) (tools.Result, bool) {
		if g == nil {
			return tools.Result{Output: `{"goal":null}`, Status: tools.StatusCompleted}, true
		}
		b, _ := json.Marshal(map[string]any{"goal": map[string]any{"objective": g.Objective, "status": g.Status,
			"tokenBudget": g.TokenBudget, "tokensUsed": g.TokensUsed, "turnBudget": g.TurnBudget, "turnsUsed": g.TurnsUsed,
			"timeBudgetSeconds": int64(g.TimeBudget / time.Second), "timeUsedSeconds": int64(g.TimeUsed / time.Second)}})
		return tools.Result{Output: string(b), Status: tools.StatusCompleted}, true
	}
	var a struct {
		Objective   string `json:"objective"`
		TokenBudget int64  `json:"token_budget"`
		Status      string `json:"status"`
		Reason      string `json:"reason"`
	}
	switch c.Name {
	case "get_goal":
		return show(s.Goal())
	case "create_goal":
		if err := json.Unmarshal([]byte(c.Input), &a); err != nil {
			return fail("failed to parse function arguments: " + err.Error())
		}
		if g := s.Goal(); g != nil && (g.Status == GoalActive || g.Status == GoalPaused) {
			return fail("this thread already has a goal (" + g.Objective + "); finish it with update_goal first")
		}
		g, err := s.SetGoal(a.Objective, a.TokenBudget)
		if err != nil {
			return fail(err.Error())
		}
		return show(&g)
	case "update_goal":
		if err := json.Unmarshal([]byte(c.Input), &a); err != nil {
			return fail("failed to parse function arguments: " + err.Error())
		}
		g := s.Goal()
		if g == nil {
			return fail("this thread has no goal")
		}
		switch GoalStatus(a.Status) {
		case GoalComplete, GoalBlocked:
		default:
			return fail(fmt.Sprintf("status %q: the model may set complete or blocked", a.Status))
		}
		g.Status, g.Reason = GoalStatus(a.Status), a.Reason
		s.setGoal(g)
		return show(g)
	}
	return tools.Result{}, false
}
