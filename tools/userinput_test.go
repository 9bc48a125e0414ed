package tools_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools"
)

const dbQuestion = `{"questions":[{"id":"db","header":"Database","question":"Which one?","options":[{"label":"Postgres (Recommended)","description":"d"},{"label":"SQLite","description":"e"}]},` +
	`{"id":"name","header":"Name","question":"What name?","options":[{"label":"svc","description":"f"}]}]}`

// TestRequestUserInputAsks: the questions reach AskUser as the model sent
// them; the answers go back as Codex's JSON, a question left unanswered
// with an empty list; a person ending the turn aborts it.
func TestRequestUserInputAsks(t *testing.T) {
	var asked tools.UserInputRequest
	inv := &tools.Invocation{Call: tools.Call{ID: "call_1", Name: "request_user_input", Input: dbQuestion},
		AskUser: func(_ context.Context, req tools.UserInputRequest) (map[string][]string, bool) {
			asked = req
			return map[string][]string{"db": {"SQLite", "user_note: it is a demo"}}, true
		}}
	res := tools.RequestUserInput{}.Run(t.Context(), inv)
	want := `{"answers":{"db":{"answers":["SQLite","user_note: it is a demo"]},"name":{"answers":[]}}}`
	if res.Status != tools.StatusCompleted || res.Output != want {
		t.Errorf("result %s %q, want completed %s", res.Status, res.Output, want)
	}
	wantReq := tools.UserInputRequest{CallID: "call_1", Questions: []tools.Question{
		{ID: "db", Header: "Database", Question: "Which one?", Options: []tools.Option{{Label: "Postgres (Recommended)", Description: "d"}, {Label: "SQLite", Description: "e"}}},
		{ID: "name", Header: "Name", Question: "What name?", Options: []tools.Option{{Label: "svc", Description: "f"}}},
	}}
	if diff := cmp.Diff(wantReq, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	inv.AskUser = func(context.Context, tools.UserInputRequest) (map[string][]string, bool) { return nil, false }
	if res := (tools.RequestUserInput{}).Run(t.Context(), inv); !res.AbortTurn || res.Status != tools.StatusAborted {
		t.Errorf("cancelled: %+v, want the turn aborted", res)
	}
}

// TestRequestUserInputRefuses: nobody asked for a call without choices,
// malformed arguments or in a session without a user.
func TestRequestUserInputRefuses(t *testing.T) {
	ask := func(context.Context, tools.UserInputRequest) (map[string][]string, bool) {
		t.Error("asked")
		return nil, false
	}
	for _, tc := range []struct {
		r     tools.RequestUserInput
		input string
		ask   func(context.Context, tools.UserInputRequest) (map[string][]string, bool)
		want  string
	}{
		{tools.RequestUserInput{}, `{"questions":[{"id":"a","header":"h","question":"q","options":[]}]}`, ask, "request_user_input requires non-empty options for every question"},
		{tools.RequestUserInput{}, `{"questions":[]}`, ask, "request_user_input requires at least one question"},
		{tools.RequestUserInput{}, `{`, ask, "failed to parse function arguments: unexpected end of JSON input"},
		{tools.RequestUserInput{Headless: true}, dbQuestion, ask, "request_user_input is not supported in exec mode: no user is there to answer. Decide yourself, and say in your answer what you assumed."},
		{tools.RequestUserInput{}, dbQuestion, nil, "request_user_input is not supported in exec mode: no user is there to answer. Decide yourself, and say in your answer what you assumed."},
	} {
		res := tc.r.Run(t.Context(), &tools.Invocation{Call: tools.Call{ID: "c", Input: tc.input}, AskUser: tc.ask})
		if res.Status != tools.StatusFailed || res.Output != tc.want {
			t.Errorf("%s: %s %q, want failed %q", tc.input, res.Status, res.Output, tc.want)
		}
	}
}
