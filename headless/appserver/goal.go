package appserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentcli/agent/session"
)

// Goals, as Codex's thread/goal/get, thread/goal/set and thread/goal/clear
// with the thread/goal/updated and thread/goal/cleared notifications. An
// active goal is continued when its thread is idle, each continuation a
// turn of its own (turn/started … turn/completed), as Codex's app-server
// continues one; the session bounds it ([session.Session.PursueTurn]).

// goalJSON is g as Codex's ThreadGoal.
func goalJSON(threadID string, g session.Goal) map[string]any {
	return map[string]any{"threadId": threadID, "objective": g.Objective, "status": string(g.Status),
		"tokenBudget": g.TokenBudget, "tokensUsed": g.TokensUsed, "timeUsedSeconds": int64(g.TimeUsed.Seconds()),
		"createdAt": g.Created.Unix(), "updatedAt": g.Updated.Unix()}
}

func (c *client) threadGoalGet(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string `json:"threadId"`
	}
	if err := decode("thread/goal/get", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("thread/goal/get", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	g := th.t.Goal()
	if g == nil {
		return map[string]any{"goal": nil}, nil, nil
	}
	return map[string]any{"goal": goalJSON(th.id, *g)}, nil, nil
}

// goalSetParams are thread/goal/set's: a new objective replaces the goal
// (a new one, active unless status says otherwise); status and
// tokenBudget change the goal in place.
type goalSetParams struct {
	ThreadID    string              `json:"threadId"`
	Objective   *string             `json:"objective"`
	Status      *session.GoalStatus `json:"status"`
	TokenBudget *int64              `json:"tokenBudget"`
}

func (c *client) threadGoalSet(params json.RawMessage) (any, func(), error) {
	var p goalSetParams
	if err := decode("thread/goal/set", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("thread/goal/set", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	if p.Status != nil {
		switch *p.Status {
		case session.GoalActive, session.GoalPaused, session.GoalBlocked, session.GoalUsageLimited, session.GoalBudgetLimited, session.GoalComplete:
		default:
			return nil, nil, invalidParams("thread/goal/set: status %q is not a goal status (active, paused, blocked, usageLimited, budgetLimited, complete)", *p.Status)
		}
	}
	if err := th.idleFor("thread/goal/set"); err != nil {
		return nil, nil, err
	}
	g, err := th.setGoal(p)
	if err != nil {
		return nil, nil, invalidParams("thread/goal/set: %v", err)
	}
	return map[string]any{"goal": goalJSON(th.id, g)}, func() {
		th.syncGoal("")
		th.continueGoal()
	}, nil
}

// setGoal applies p to the thread's goal.
func (th *thread) setGoal(p goalSetParams) (session.Goal, error) {
	var tokens int64
	if p.TokenBudget != nil {
		tokens = *p.TokenBudget
	}
	cur := th.t.Goal()
	var g session.Goal
	var err error
	if p.Objective != nil && (cur == nil || *p.Objective != cur.Objective) {
		if g, err = th.t.SetGoal(*p.Objective, tokens); err != nil {
			return g, err
		}
	} else if cur == nil {
		return g, errNoGoal()
	} else if p.TokenBudget != nil {
		if g, err = th.t.SetGoalTokenBudget(tokens); err != nil {
			return g, err
		}
	}
	if p.Status != nil {
		return th.t.SetGoalStatus(*p.Status)
	}
	if g := th.t.Goal(); g != nil {
		return *g, nil
	}
	return g, errNoGoal()
}

// errNoGoal answers a change to a goal a thread does not have.
func errNoGoal() error { return errors.New("the thread has no goal: give an objective to set one") }

func (c *client) threadGoalClear(params json.RawMessage) (any, func(), error) {
	var p struct {
		ThreadID string `json:"threadId"`
	}
	if err := decode("thread/goal/clear", params, &p); err != nil {
		return nil, nil, err
	}
	th, err := c.subscribedThread("thread/goal/clear", p.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	if err := th.idleFor("thread/goal/clear"); err != nil {
		return nil, nil, err
	}
	cleared := th.t.ClearGoal()
	return map[string]any{"cleared": cleared}, func() {
		if cleared {
			th.syncGoal("")
		}
	}, nil
}

// idleFor refuses method while a turn runs: a goal changes between turns.
func (th *thread) idleFor(method string) error {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.turn != nil {
		return invalidParams("%s: thread %s has a turn in progress (%s): turn/interrupt it first (an interrupted goal turn pauses the goal)", method, th.id, th.turn.id)
	}
	return nil
}

// syncGoal tells the subscribers of a change of the thread's goal since
// they were last told: thread/goal/updated, or thread/goal/cleared.
func (th *thread) syncGoal(turnID string) {
	g := th.t.Goal()
	var now string
	if g != nil {
		b, _ := json.Marshal(g)
		now = string(b)
	}
	th.mu.Lock()
	changed := now != th.goalSent
	th.goalSent = now
	th.mu.Unlock()
	switch {
	case !changed:
	case g == nil:
		th.broadcast("thread/goal/cleared", map[string]any{"threadId": th.id})
	default:
		var tid any
		if turnID != "" {
			tid = turnID
		}
		th.broadcast("thread/goal/updated", map[string]any{"threadId": th.id, "turnId": tid, "goal": goalJSON(th.id, *g)})
	}
}

// continueGoal starts the next continuation turn of the thread's active
// goal when the thread is idle.
func (th *thread) continueGoal() {
	g := th.t.Goal()
	if g == nil || g.Status != session.GoalActive {
		return
	}
	if g.Spent() != "" {
		// No turn: the session stops the goal, naming the budget.
		_, _ = th.t.PursueTurn(context.Background(), func(session.Event) {})
		th.syncGoal("")
		return
	}
	tu, err := th.startGoalTurn()
	if err != nil {
		return // closed, or a turn began meanwhile: it continues the goal when it ends
	}
	go tu.run()
}
