package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// costScript is a turn of two priced responses: a shell call (1000 input
// tokens, 400 of them cached, 100 out), then the answer (2000 in, 1000
// cached, 50 out).
func costScript() rt.Script {
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "exec_command", `{"cmd":"echo hi","login":false}`),
			rt.CompletedUsage("r1", 1000, 400, 100, 0)),
		rt.Stream(rt.Created("r2"), rt.MessageDone("m2", "done"), rt.CompletedUsage("r2", 2000, 1000, 50, 0)),
	}
}

// costConfig prices test-model: USD 1000 per million input tokens, 100
// cached, 2000 out (large, so the figures are easy to check).
const costConfig = "[models.\"test-model\"]\ncost = { input = 1000.0, output = 2000.0, cache_read = 100.0 }\n"

// wantCost is costScript's price at costConfig's: (600*1000 + 400*100 +
// 100*2000 + 1000*1000 + 1000*100 + 50*2000) / 1e6.
const wantCost = 2.04

// TestE2EExecCost: agent exec --json's turn.completed carries the turn's
// cost priced from the catalogue (config's [models] here), the text mode
// says it beside the tokens, and the rollout records it.
func TestE2EExecCost(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, costScript())
	home := writeConfig(t, srv.URL, costConfig)
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "--json", "run it")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exec: %v\n%s", err, stderr)
	}
	var got *float64
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	for sc.Scan() {
		var ev struct {
			Type  string `json:"type"`
			Usage *struct {
				CostUSD *float64 `json:"cost_usd"`
			} `json:"usage"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "turn.completed" && ev.Usage != nil {
			got = ev.Usage.CostUSD
		}
	}
	if got == nil || math.Abs(*got-wantCost) > 1e-9 {
		t.Errorf("turn.completed cost_usd = %v; want %v\n%s", got, wantCost, stdout)
	}
	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	if ro.CostUSD == nil || math.Abs(*ro.CostUSD-wantCost) > 1e-9 {
		t.Errorf("rollout cost = %v; want %v", ro.CostUSD, wantCost)
	}

	// Without a price, no cost: never guessed.
	srv2 := rt.NewServer(t, costScript())
	cmd, stdout, stderr = agentCmd(t, bin, writeConfig(t, srv2.URL, ""), "exec", "--json", "run it")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exec: %v\n%s", err, stderr)
	}
	if strings.Contains(stdout.String(), "cost_usd") {
		t.Errorf("an unpriced model got a cost:\n%s", stdout)
	}
}

// TestE2EExecMaxCost: --max-cost ends the run before a request that would
// start past the budget (exit code 8, the one request made), and a model
// without a price cannot be budgeted (exit 2 before any request).
func TestE2EExecMaxCost(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, costScript())
	home := writeConfig(t, srv.URL, costConfig)
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "--max-cost", "0.5", "run it")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Budget {
		t.Fatalf("exec --max-cost 0.5: %v; want exit code %d\n%s", err, exitcode.Budget, stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; want 1: the second would start with $0.84 spent of $0.50", n)
	}
	if !strings.Contains(stderr.String(), "cost budget spent") || !strings.Contains(stderr.String(), "$0.50") {
		t.Errorf("stderr does not say the budget was spent:\n%s", stderr)
	}

	srv2 := rt.NewServer(t, costScript())
	home2 := writeConfig(t, srv2.URL, "")
	cmd, _, stderr = agentCmd(t, bin, home2, "exec", "--max-cost", "1", "run it")
	err = cmd.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Usage {
		t.Fatalf("exec --max-cost on an unpriced model: %v; want exit code %d\n%s", err, exitcode.Usage, stderr)
	}
	if len(srv2.Requests()) != 0 || !strings.Contains(stderr.String(), `[models."test-model"]`) {
		t.Errorf("want no request and the fix named; got %d requests, stderr:\n%s", len(srv2.Requests()), stderr)
	}

	// max_cost_usd in config is the same budget.
	srv3 := rt.NewServer(t, costScript())
	home3 := writeConfig(t, srv3.URL, "max_cost_usd = 0.5\n"+costConfig)
	cmd, _, stderr = agentCmd(t, bin, home3, "exec", "run it")
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != exitcode.Budget {
		t.Errorf("max_cost_usd = 0.5: %v; want exit code %d\n%s", err, exitcode.Budget, stderr)
	}
}

// TestBatchResultsCost: each result line of agent exec --batch carries
// its prompt's cost in usage.cost_usd, priced from the catalogue; without
// a price there is none.
func TestBatchResultsCost(t *testing.T) {
	t.Parallel()
	priced := func(id string) rt.Attempt {
		return rt.Stream(rt.Created("r"+id), rt.MessageDone("m"+id, "done "+id), rt.CompletedUsage("r"+id, 1000, 400, 100, 0))
	}
	ps := agenttest.NewPromptServer(t, map[string]rt.Script{"a": {priced("a")}, "b": {priced("b")}})
	path := writeBatch(t, t.TempDir(), batchLine("a", "a"), batchLine("b", "b"))
	r := runCLI(t, nil, runOpts{config: ps.Config() + costConfig}, "exec", "--batch", path, "--jobs", "2")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	// 600 uncached at $1000, 400 cached at $100, 100 out at $2000 per million.
	const want = (600*1000 + 400*100 + 100*2000) / 1e6
	results := readResults(t, r.stdout)
	for _, res := range results {
		if res.Usage == nil || res.Usage.CostUSD == nil || math.Abs(*res.Usage.CostUSD-want) > 1e-9 {
			t.Errorf("result %s: usage %+v; want cost_usd %v", res.ID, res.Usage, want)
		}
	}
	if len(results) != 2 {
		t.Errorf("%d results; want 2:\n%s", len(results), r.stdout)
	}

	ps = agenttest.NewPromptServer(t, map[string]rt.Script{"a": {priced("a")}})
	path = writeBatch(t, t.TempDir(), batchLine("a", "a"))
	r = runCLI(t, nil, runOpts{config: ps.Config()}, "exec", "--batch", path)
	if r.code != 0 || strings.Contains(r.stdout, "cost_usd") {
		t.Errorf("an unpriced model: exit %d, results:\n%s", r.code, r.stdout)
	}
}
