package frontends

import (
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatRequestUserInput: in the real chat, the model's
// request_user_input question is shown with its choices; the person picks
// one and adds a note, and the answer goes back to the model as the call's
// output, as Codex sends it; the transcript shows what was answered.
func TestE2EChatRequestUserInput(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	args := `{"questions":[{"id":"db","header":"Database","question":"Which database should the service use?",` +
		`"options":[{"label":"Postgres (Recommended)","description":"What prod runs."},{"label":"SQLite","description":"One file."}]}]}`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "request_user_input", args), rt.Completed("r1")),
		rt.Reply("r2", "m2", "using SQLite then"),
	})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.send("set up the service")
	c.waitFor("Question 1/1 (1 unanswered)")
	c.waitFor("( ) 2. SQLite  One file.")
	c.keys("Down", "Down")
	c.waitFor("(•) 2. SQLite")
	c.keys("Tab")
	c.keys("-l", "just a demo")
	c.waitFor("note: just a demo")
	c.keys("Enter")
	c.waitFor("using SQLite then")
	c.waitFor("│ Database: SQLite · note: just a demo")
	c.waitIdle()
	want := `{"answers":{"db":{"answers":["SQLite","user_note: just a demo"]}}}`
	if got := agenttest.CallOutput(t, srv); got != want {
		t.Errorf("the model was told %s, want %s", got, want)
	}
}
