package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// goalConfig is the fake provider's config plus [goals] lines.
func goalConfig(goals string) string {
	return "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n\n[goals]\n" + goals
}

// TestExecPursuesGoal: as Codex's exec, a goal the model creates in
// `agent exec` is pursued in the same run, turn after turn with the goal's
// continuation prompt, until the model marks it complete: stdout holds the
// last answer once, stderr names the goal's end, exit 0. A goal that
// never ends is stopped by its turn budget ([goals] max_goal_turns), the
// budget named, exit 0; a promptless `exec resume` of a session whose goal
// a budget stopped (and whose turn completed) asks for a prompt.
func TestExecPursuesGoal(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{
		agenttest.CreateGoal("r1", "make the tests pass"), rt.Reply("r2", "m2", "goal set, starting"),
		agenttest.CompleteGoal("r3"), rt.Reply("r4", "m4", "all tests pass"),
	})
	r := runCLI(t, srv, runOpts{stdinTTY: true}, "exec", "make the tests pass, as a goal")
	if r.code != 0 || r.stdout != "all tests pass\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and the last answer once\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests; want 4 (the turn's two, the goal turn's two)", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "Continue working toward the goal: make the tests pass") {
		t.Errorf("the third request is not the goal's continuation:\n%s", body)
	}
	if !strings.Contains(r.stderr, "Goal complete: make the tests pass") {
		t.Errorf("stderr does not say the goal is complete:\n%s", r.stderr)
	}

	srv = rt.NewServer(t, rt.Script{
		agenttest.CreateGoal("r1", "never ends"), rt.Reply("r2", "m2", "set"),
		rt.Reply("r3", "m3", "still going"), rt.Reply("r4", "m4", "still going, again"),
	})
	r = runCLI(t, srv, runOpts{config: goalConfig("max_goal_turns = 2\n"), stdinTTY: true}, "exec", "--json", "go on forever")
	if r.code != 0 || len(srv.Requests()) != 4 {
		t.Fatalf("budget: exit %d, %d requests; want 0, 4\nstdout:\n%s\nstderr:\n%s", r.code, len(srv.Requests()), r.stdout, r.stderr)
	}
	if strings.Count(r.stdout, `"type":"turn.completed"`) != 3 || !strings.Contains(r.stdout, "turn budget (2 turns)") {
		t.Errorf("--json: want three turns and the budget named:\n%s", r.stdout)
	}
	id := sessionIDOf(t, strings.ReplaceAll(strings.SplitN(r.stdout, "\n", 2)[0], `{"type":"thread.started","thread_id":"`, "session id: "))
	id = strings.TrimSuffix(id, `"}`)
	r = runCLI(t, nil, runOpts{home: r.home, stdinTTY: true}, "exec", "resume", id)
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "give a PROMPT") || len(srv.Requests()) != 4 {
		t.Errorf("promptless resume of a spent goal: exit %d, %d requests; want %d, none sent\n%s", r.code, len(srv.Requests()), exitcode.Usage, r.stderr)
	}
}

// usageLimit is Codex's usage-limit error, resetting in an hour.
func usageLimit() rt.Attempt {
	return rt.StatusBody(429, `{"error":{"type":"usage_limit_reached","message":"You've hit your usage limit.","plan_type":"plus","resets_in_seconds":3600}}`)
}

// TestExecGoalUsageLimit: a usage limit met while exec pursues a goal
// pauses the goal (usageLimited) instead of ending it. With
// --wait-for-reset covering the reset, exec waits for it (one wait of the
// hour, on the injected clock, no request during it), makes the goal
// active again and goes on until the model completes it. Without the
// flag, or with a MAX short of the reset, the goal stays paused, exec
// exits 4 and says how to go on (`agent exec resume ID`), and that
// promptless resume continues the goal where it stopped.
func TestExecGoalUsageLimit(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{
		agenttest.CreateGoal("r1", "ship it"), rt.Reply("r2", "m2", "set"), usageLimit(),
		agenttest.CompleteGoal("r4"), rt.Reply("r5", "m5", "shipped after the reset"),
	})
	r := runCLI(t, srv, runOpts{stdinTTY: true}, "exec", "--wait-for-reset=2h", "ship it, as a goal")
	if r.code != 0 || r.stdout != "shipped after the reset\n" || len(srv.Requests()) != 5 {
		t.Fatalf("--wait-for-reset: exit %d, stdout %q, %d requests; want 0, the answer, 5\nstderr:\n%s", r.code, r.stdout, len(srv.Requests()), r.stderr)
	}
	if len(r.sleeps) != 1 || r.sleeps[0] > time.Hour || r.sleeps[0] < time.Hour-time.Minute {
		t.Errorf("waits %v; want one wait of the reset's hour", r.sleeps)
	}
	for _, want := range []string{"Goal paused: the usage limit was reached (it resets at ", "then continuing the goal", "continuing the goal after the reset: ship it", "Goal complete: ship it"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if body := string(srv.Requests()[3].Body); !strings.Contains(body, "Continue working toward the goal: ship it") {
		t.Errorf("the request after the wait is not the goal's continuation")
	}

	for _, flags := range [][]string{nil, {"--wait-for-reset=30m"}} {
		srv := rt.NewServer(t, rt.Script{
			agenttest.CreateGoal("r1", "ship it"), rt.Reply("r2", "m2", "set"), usageLimit(),
			agenttest.CompleteGoal("r4"), rt.Reply("r5", "m5", "shipped on resume"),
		})
		r := runCLI(t, srv, runOpts{stdinTTY: true}, append(append([]string{"exec"}, flags...), "ship it, as a goal")...)
		id := sessionIDOf(t, r.stderr)
		if r.code != exitcode.Quota || len(r.sleeps) != 0 || len(srv.Requests()) != 3 {
			t.Fatalf("%v: exit %d, waits %v, %d requests; want %d, none, 3\n%s", flags, r.code, r.sleeps, len(srv.Requests()), exitcode.Quota, r.stderr)
		}
		if !strings.Contains(r.stderr, "the goal stays paused") || !strings.Contains(r.stderr, "`agent exec resume "+id+"` continues it") {
			t.Errorf("%v: stderr does not say how to resume the goal:\n%s", flags, r.stderr)
		}
		r = runCLI(t, nil, runOpts{home: r.home, stdinTTY: true}, "exec", "resume", id)
		if r.code != 0 || r.stdout != "shipped on resume\n" || len(srv.Requests()) != 5 {
			t.Fatalf("%v: resume: exit %d, stdout %q, %d requests; want 0, the answer, 5\n%s", flags, r.code, r.stdout, len(srv.Requests()), r.stderr)
		}
		if body := string(srv.Requests()[3].Body); !strings.Contains(body, "Continue working toward the goal: ship it") || !strings.Contains(body, "ship it, as a goal") {
			t.Errorf("%v: the resumed request is not the goal's continuation of the recorded session", flags)
		}
	}
}
