package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// PlanStep is one step of the model's plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Plan is the update_plan tool. It has no side effect: it records the plan
// for front ends to show.
type Plan struct{}

// Name implements [Tool].
func (Plan) Name() string { return "update_plan" }

// ParallelSafe implements [Tool].
func (Plan) ParallelSafe() bool { return true }

// Spec implements [Tool].
func (Plan) Spec() json.RawMessage {
	return functionSpec("update_plan",
		"Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"explanation": map[string]any{"type": "string"},
				"plan": map[string]any{
					"type": "array",
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"step":   map[string]any{"type": "string"},
							"status": map[string]any{"type": "string", "enum": []string{"pending", "in_progress", "completed"}},
						},
						"required":             []string{"step", "status"},
						"additionalProperties": false,
					},
				},
			},
			"required":             []string{"plan"},
			"additionalProperties": false,
		})
}

// Run implements [Tool].
func (Plan) Run(_ context.Context, inv *Invocation) Result {
	var a struct {
		Explanation string     `json:"explanation"`
		Plan        []PlanStep `json:"plan"`
	}
	if err := json.Unmarshal([]byte(inv.Call.Input), &a); err != nil {
		return Result{Output: "failed to parse function arguments: " + err.Error(), Status: StatusFailed}
	}
	inProgress := 0
	for i, s := range a.Plan {
		switch s.Status {
		case "pending", "completed":
		case "in_progress":
			inProgress++
		default:
			return Result{Output: fmt.Sprintf("plan step %d: unknown status %q (want pending, in_progress or completed)", i+1, s.Status), Status: StatusFailed}
		}
	}
	if inProgress > 1 {
		return Result{Output: fmt.Sprintf("at most one step can be in_progress at a time; %d are", inProgress), Status: StatusFailed}
	}
	if err := inv.Start(); err != nil {
		return NotStarted(err)
	}
	return Result{Output: "Plan updated", Status: StatusCompleted, Plan: a.Plan}
}
