package tools

import (
	"context"
	"encoding/json"
)

// RequestUserInput is Codex's request_user_input tool (its spec word for
// word): the model asks the user one to three questions with choices. In
// the chat ([Invocation].AskUser) the person picks a choice, may add a note,
// and the answers go back as Codex sends them:
// {"answers":{"<id>":{"answers":["<label>","user_note: <note>"]}}}. With
// nobody to answer (agent exec) the call fails at once saying so, as
// Codex's exec answers it.
type RequestUserInput struct {
	// Headless says the session has no user (agent exec).
	Headless bool
}

// UserInputRequest is one request_user_input call: what the chat shows.
type UserInputRequest struct {
	CallID    string
	Questions []Question
}

// Question is one question of a request_user_input call.
type Question struct {
	ID       string   `json:"id"`
	Header   string   `json:"header"`
	Question string   `json:"question"`
	Options  []Option `json:"options"`
}

// Option is one choice of a [Question].
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// NotePrefix marks a note the person typed among a question's answers, as
// Codex marks it.
const NotePrefix = "user_note: "

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

// Run implements [Tool]: it asks through inv.AskUser and waits for the
// answers, or fails at once when nobody can answer.
func (r RequestUserInput) Run(ctx context.Context, inv *Invocation) Result {
	if r.Headless || inv.AskUser == nil {
		return Result{Output: "request_user_input is not supported in exec mode: no user is there to answer. Decide yourself, and say in your answer what you assumed.", Status: StatusFailed}
	}
	var args struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return Result{Output: "failed to parse function arguments: " + err.Error(), Status: StatusFailed}
	}
	if msg := checkQuestions(args.Questions); msg != "" {
		return Result{Output: msg, Status: StatusFailed}
	}
	answers, ok := inv.AskUser(ctx, UserInputRequest{CallID: inv.Call.ID, Questions: args.Questions})
	if !ok {
		return Result{Output: "request_user_input was cancelled before receiving a response", Status: StatusAborted, AbortTurn: ctx.Err() == nil}
	}
	type answer struct {
		Answers []string `json:"answers"`
	}
	out := struct {
		Answers map[string]answer `json:"answers"`
	}{Answers: map[string]answer{}}
	for _, q := range args.Questions {
		a := answers[q.ID]
		if a == nil {
			a = []string{}
		}
		out.Answers[q.ID] = answer{Answers: a}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return Result{Output: "encode the answers: " + err.Error(), Status: StatusFailed}
	}
	return Result{Output: string(b), Status: StatusCompleted}
}

// checkQuestions says what is wrong with a call's questions, "" when
// nothing: at least one, every one with an id and choices.
func checkQuestions(qs []Question) string {
	if len(qs) == 0 {
		return "request_user_input requires at least one question"
	}
	for _, q := range qs {
		if q.ID == "" {
			return "request_user_input requires an id for every question"
		}
		if len(q.Options) == 0 {
			return "request_user_input requires non-empty options for every question"
		}
	}
	return ""
}
