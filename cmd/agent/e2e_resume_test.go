package main

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// inputOf returns the recorded input items of request i, re-encoded.
func inputOf(t *testing.T, srv *rt.Server, i int) []string {
	t.Helper()
	var out []string
	for _, it := range srv.Requests()[i].JSON["input"].([]any) {
		b, _ := json.Marshal(it)
		out = append(out, string(b))
	}
	return out
}

func TestExecResumeRoundTrip(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "second answer")})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	os.WriteFile(home+"/config.toml", []byte(cfg), 0o600)
	env := map[string]string{"AGENT_HOME": home}
	r := runCLI(t, nil, runOpts{config: cfg, env: env, stdinTTY: true}, "exec", "one")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = runCLI(t, nil, runOpts{config: cfg, env: env, stdinTTY: true}, "exec", "resume", "--last", "two")
	if r.code != 0 || r.stdout != "second answer\n" {
		t.Fatalf("resume: exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	// The resumed prompt is exactly the history before, plus the new message.
	first, second := inputOf(t, srv, 0), inputOf(t, srv, 1)
	if len(second) != len(first)+2 {
		t.Fatalf("resumed input has %d items; want %d", len(second), len(first)+2)
	}
	if diff := cmp.Diff(first, second[:len(first)]); diff != "" {
		t.Errorf("resumed history differs (-before +resumed):\n%s", diff)
	}
	if !strings.Contains(second[len(first)], "first answer") || !strings.Contains(second[len(first)+1], `"two"`) {
		t.Errorf("tail = %v", second[len(first):])
	}
	entries, _ := rollout.List(t.Context(), home, "", true, 10)
	if len(entries) != 1 {
		t.Errorf("%d sessions recorded; want 1 (resume appends to the same file)", len(entries))
	}
	r = runCLI(t, nil, runOpts{config: cfg, env: env, stdinTTY: true}, "exec", "resume", "--last")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "last turn completed") {
		t.Errorf("resume without prompt after a completed turn: exit %d %q", r.code, r.stderr)
	}
}

func TestExecEphemeral(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "x")})
	r := runCLI(t, srv, runOpts{}, "exec", "--ephemeral", "hi")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if _, err := os.Stat(r.home + "/sessions"); !os.IsNotExist(err) {
		t.Errorf("an ephemeral run recorded a session: %v", err)
	}
}

// TestE2EKillMidToolThenResume kills agent exec with SIGKILL while a
// command runs; the rollout is readable, the ledger shows the call
// started (so unknown), and resuming tells the model the outcome is
// unknown instead of running the command again.
func TestE2EKillMidToolThenResume(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	dir := t.TempDir()
	args, _ := json.Marshal(map[string]any{"cmd": "echo ran >> count.txt; sleep 60", "yield_time_ms": 30000})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m0", "working "), rt.MessageDone("m0", "working on it"),
			rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "resumed fine"),
	})
	home := writeConfig(t, srv.URL, "sandbox_mode = \"danger-full-access\"\n")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "-C", dir, "count things")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, _ := os.ReadFile(dir + "/count.txt"); string(b) == "ran\n" {
			break
		}
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("the command never ran; stderr:\n%s", stderr)
		case <-tick.C:
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatalf("rollout unreadable after SIGKILL: %v", err)
	}
	if !ro.Interrupted {
		t.Errorf("last turn = %q; want it marked interrupted", ro.LastTurn)
	}
	var states []string
	for _, e := range ro.Ledger {
		states = append(states, e.CallID+":"+e.State)
	}
	if diff := cmp.Diff([]string{"call_1:started"}, states); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}

	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "-C", dir, "resume", "--last")
	if err := cmd.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr)
	}
	if stdout.String() != "resumed fine\n" {
		t.Errorf("stdout = %q", stdout)
	}
	if b, _ := os.ReadFile(dir + "/count.txt"); string(b) != "ran\n" {
		t.Errorf("count.txt = %q; the command ran again", b)
	}
	in := strings.Join(inputOf(t, srv, 1), "\n")
	if !strings.Contains(in, "the outcome of this call is unknown") {
		t.Errorf("the model was not told the call's outcome is unknown:\n%s", in)
	}
	if strings.Count(in, "working on it") != 1 || strings.Count(in, "count things") != 1 {
		t.Errorf("history duplicated:\n%s", in)
	}
}

// TestCompactionIsRecorded: a context overflow on a resumed session
// compacts it; the rollout keeps the pre-compaction items and a reload
// yields the compacted history.
func TestCompactionIsRecorded(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "first answer"),
		rt.Stream(rt.Created("r2"), rt.Failed("r2", "context_length_exceeded", "full")),
		rt.Reply("r3", "m3", "SUMMARY-XYZ"),
		rt.Reply("r4", "m4", "second answer"),
	})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	os.WriteFile(home+"/config.toml", []byte(cfg), 0o600)
	env := map[string]string{"AGENT_HOME": home}
	if r := runCLI(t, nil, runOpts{config: cfg, env: env, stdinTTY: true}, "exec", "one"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := runCLI(t, nil, runOpts{config: cfg, env: env, stdinTTY: true}, "exec", "resume", "--last", "two")
	if r.code != 0 || r.stdout != "second answer\n" {
		t.Fatalf("exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	ent, _ := rollout.Latest(t.Context(), home, "", true)
	raw, _ := os.ReadFile(ent.Path)
	if !strings.Contains(string(raw), "first answer") || !strings.Contains(string(raw), `"type":"compacted"`) {
		t.Errorf("the rollout lost the pre-compaction history or the compaction:\n%s", raw)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range ro.History {
		got = append(got, it.Text())
	}
	joined := strings.Join(got, "|")
	if strings.Contains(joined, "first answer") || !strings.Contains(joined, "SUMMARY-XYZ") || !strings.HasSuffix(joined, "second answer") {
		t.Errorf("reloaded history = %q", got)
	}
}

// TestE2EKillMidStreamThenResume: SIGKILL while the answer streams; the
// rollout is readable and marks the turn interrupted; resuming continues
// it without repeating the original prompt.
func TestE2EKillMidStreamThenResume(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "half an ans"), rt.Barrier("streaming"), rt.Stall()),
		rt.Reply("r2", "m2", "the whole answer"),
	})
	home := writeConfig(t, srv.URL, "")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "explain")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Reached("streaming"):
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("never streamed; stderr:\n%s", stderr)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	srv.Release()
	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatalf("rollout unreadable after SIGKILL: %v", err)
	}
	if !ro.Interrupted || len(ro.History) == 0 {
		t.Fatalf("rollout: interrupted=%v history=%d", ro.Interrupted, len(ro.History))
	}
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "resume", "--last", "--all")
	if err := cmd.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr)
	}
	if stdout.String() != "the whole answer\n" {
		t.Errorf("stdout = %q", stdout)
	}
	in := strings.Join(inputOf(t, srv, 1), "\n")
	if strings.Count(in, `"explain"`) != 1 || !strings.Contains(in, "Continue exactly where you left off") || strings.Contains(in, "half an ans") {
		t.Errorf("resumed request:\n%s", in)
	}
}

// sessionIDOf is the id exec's stderr header shows.
func sessionIDOf(t *testing.T, stderr string) string {
	t.Helper()
	for _, ln := range strings.Split(stderr, "\n") {
		if id, ok := strings.CutPrefix(ln, "session id: "); ok {
			return id
		}
	}
	t.Fatalf("stderr shows no session id:\n%s", stderr)
	return ""
}

// TestExecSessionIDResumeByPrefix: exec's header shows the session id;
// resume takes the full id or any unique prefix, and lists the matches of
// an ambiguous one.
func TestExecSessionIDResumeByPrefix(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "a"), rt.Reply("r2", "m2", "b"),
		rt.Reply("r3", "m3", "by full id"), rt.Reply("r4", "m4", "by prefix")})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	os.WriteFile(home+"/config.toml", []byte(cfg), 0o600)
	opts := runOpts{config: cfg, env: map[string]string{"AGENT_HOME": home}, stdinTTY: true}
	r1 := runCLI(t, nil, opts, "exec", "first session")
	r2 := runCLI(t, nil, opts, "exec", "second session")
	if r1.code != 0 || r2.code != 0 {
		t.Fatalf("exit %d, %d: %s %s", r1.code, r2.code, r1.stderr, r2.stderr)
	}
	id1, id2 := sessionIDOf(t, r1.stderr), sessionIDOf(t, r2.stderr)
	common := 0
	for common < len(id1) && common < len(id2) && id1[common] == id2[common] {
		common++
	}
	if common == 0 || common == len(id1) {
		t.Fatalf("ids %s and %s share no prefix (or are equal)", id1, id2)
	}
	r := runCLI(t, nil, opts, "exec", "resume", id1[:common], "hi")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "matches 2 sessions") ||
		!strings.Contains(r.stderr, id1) || !strings.Contains(r.stderr, id2) || !strings.Contains(r.stderr, "second session") {
		t.Errorf("ambiguous prefix: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests after the ambiguous resume; want 2", n)
	}
	r = runCLI(t, nil, opts, "exec", "resume", id1, "again")
	if r.code != 0 || r.stdout != "by full id\n" || sessionIDOf(t, r.stderr) != id1 {
		t.Errorf("resume by full id: exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, opts, "exec", "resume", id2[:common+1], "again")
	if r.code != 0 || r.stdout != "by prefix\n" || sessionIDOf(t, r.stderr) != id2 {
		t.Errorf("resume by unique prefix: exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(string(srv.Requests()[3].Body), "second session") {
		t.Error("the prefix resumed the wrong session")
	}
}
