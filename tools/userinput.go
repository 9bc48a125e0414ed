package tools

import (
	"context"
	"encoding/json"
)

// RequestUserInput is Codex's request_user_input tool (its spec word for
// word): the model asks the user one to three questions with choices.
// agent has no front end that answers it yet, so a call is a failed one
// whose output tells the model to go on without an answer: in a session
// without a user (agent exec) that nobody can answer, in the chat what
// Codex answers outside its Plan mode.
type RequestUserInput struct {
	// Headless says the session has no user (agent exec).
	Headless bool
}

// Name implements [Tool].
func (RequestUserInput) Name() string { return "request_user_input" }

// ParallelSafe implements [Tool].
func (RequestUserInput) ParallelSafe() bool { return true }

// Spec implements [Tool].
func (RequestUserInput) Spec() json.RawMessage {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	option := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"description": str("One short sentence explaining impact/tradeoff if selected."),
			"label":       str("User-facing label (1-5 words)."),
		},
		"required":             []string{"label", "description"},
		"additionalProperties": false,
	}
	question := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"header": str("Short header label shown in the UI (12 or fewer chars)."),
			"id":     str("Stable identifier for mapping answers (snake_case)."),
			"options": map[string]any{
				"type":        "array",
				"description": `Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with "(Recommended)". Do not include an "Other" option in this list; the client will add a free-form "Other" option automatically.`,
				"items":       option,
			},
			"question": str("Single-sentence prompt shown to the user."),
		},
		"required":             []string{"id", "header", "question", "options"},
		"additionalProperties": false,
	}
	return functionSpec("request_user_input",
		"Request user input for one to three short questions and wait for the response. This tool is only available in Plan mode.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"questions": map[string]any{"type": "array", "description": "Questions to show the user. Prefer 1 and do not exceed 3", "items": question},
			},
			"required":             []string{"questions"},
			"additionalProperties": false,
		})
}

// Run implements [Tool]: it never waits.
func (r RequestUserInput) Run(context.Context, *Invocation) Result {
	if r.Headless {
		return Result{Output: "request_user_input is not supported in exec mode: no user is there to answer. Decide yourself, and say in your answer what you assumed.", Status: StatusFailed}
	}
	return Result{Output: "request_user_input is unavailable in Default mode", Status: StatusFailed}
}
