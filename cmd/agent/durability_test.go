package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentcli/agent/headless/batch"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// smallDisk mounts a tmpfs of size bytes for the test (root only) and
// writes the fake provider's config for srv into it, to serve as
// AGENT_HOME.
func smallDisk(t *testing.T, srv *rt.Server, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the failing-writer tests in session cover the logic", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" +
		srv.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFullDiskLongAnswer: a 200 KB answer on a 64 KiB AGENT_HOME. The
// answer is printed, the user is warned once that the session is no
// longer saved, and the exit code says so (6), in text and JSON modes.
func TestFullDiskLongAnswer(t *testing.T) {
	t.Parallel()
	// 200 deltas of 1 KiB (the server streams one per word): the rollout
	// fills up while the answer streams.
	answer := strings.Repeat(strings.Repeat("all-work-and-no-play.", 1<<10/21)+" ", 200)
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", answer)})
			home := smallDisk(t, srv, "64k")
			args := []string{"exec", "write a lot"}
			if mode == "json" {
				args = []string{"exec", "--json", "write a lot"}
			}
			r := runCLI(t, nil, runOpts{env: map[string]string{"AGENT_HOME": home}, stdinTTY: true}, args...)
			if r.code != exitcode.NotSaved {
				t.Errorf("exit %d; want %d (completed, not saved): %s", r.code, exitcode.NotSaved, r.stderr)
			}
			if !strings.Contains(r.stdout, answer) {
				t.Errorf("the answer was not printed (stdout %d bytes)", len(r.stdout))
			}
			if !strings.Contains(r.stderr, "the turn completed, but the session was not saved") ||
				!strings.Contains(r.stderr, "no space left on device") {
				t.Errorf("stderr does not say the session was not saved:\n%s", r.stderr)
			}
			switch mode {
			case "text":
				if n := strings.Count(r.stderr, "warning: the session is no longer being saved"); n != 1 {
					t.Errorf("%d not-saved warnings on stderr; want 1:\n%s", n, r.stderr)
				}
			case "json":
				n := 0
				for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
					var ev map[string]any
					if err := json.Unmarshal([]byte(line), &ev); err != nil {
						t.Fatalf("stdout line is not JSON: %v", err)
					}
					if ev["type"] == "warning" && strings.HasPrefix(ev["message"].(string), "the session is no longer being saved") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%d JSON not-saved warnings; want 1", n)
				}
			}
		})
	}
}

// TestFullDiskToolCallDoesNotRun: the model asks for a command after a
// long answer on a 64 KiB AGENT_HOME: recording the call's start fails, so
// the command does not run, the model is told why and the user warned.
func TestFullDiskToolCallDoesNotRun(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	answer := strings.Repeat("x", 200<<10)
	args, _ := json.Marshal(map[string]string{"cmd": "touch " + filepath.Join(work, "ran")})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.MessageDone("m1", answer),
			rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	})
	home := smallDisk(t, srv, "64k")
	r := runCLI(t, nil, runOpts{env: map[string]string{"AGENT_HOME": home}, stdinTTY: true},
		"exec", "-s", "danger-full-access", "-C", work, "go")
	if _, err := os.Stat(filepath.Join(work, "ran")); !os.IsNotExist(err) {
		t.Fatal("the command ran although its start could not be recorded")
	}
	if r.code != exitcode.NotSaved {
		t.Errorf("exit %d; want %d: %s", r.code, exitcode.NotSaved, r.stderr)
	}
	if !strings.Contains(r.stderr, "tool call call_1 (exec_command) was not run: its start could not be saved") {
		t.Errorf("the user was not told the call did not run:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	if out := agenttest.OutputOf(t, reqs[1], "call_1"); !strings.Contains(out, "This call was not run") {
		t.Errorf("the model was told %q", out)
	}
}

// TestResumeReportsCorruptLine: a line in the middle of a rollout is
// garbage; resuming names the file and the line number on stderr and goes
// on with the rest.
func TestResumeReportsCorruptLine(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "second answer")})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	os.WriteFile(home+"/config.toml", []byte(cfg), 0o600)
	env := map[string]string{"AGENT_HOME": home}
	if r := runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "one"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = append(lines[:3], append([]string{"{this is not json\n"}, lines[3:]...)...) // becomes line 4
	if err := os.WriteFile(ent.Path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "resume", "--last", "two")
	if r.code != 0 || r.stdout != "second answer\n" {
		t.Fatalf("resume: exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	want := "agent: warning: " + ent.Path + ": line 4: corrupt line skipped"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
}

// TestConcurrentResumesOfOneSession: three `agent exec resume` of one
// session at once. One holds the session and runs its turn; the others
// fail at once, naming the holder's pid, and append nothing.
func TestConcurrentResumesOfOneSession(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "first answer"),
		rt.Stream(rt.Created("r2"), rt.Stall(), rt.MessageDone("m2", "resumed answer"), rt.Completed("r2")),
	})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	os.WriteFile(home+"/config.toml", []byte(cfg), 0o600)
	env := map[string]string{"AGENT_HOME": home}
	if r := runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "one"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan execRun, 3)
	for i := range 3 {
		go func() {
			results <- runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "resume", "--last", fmt.Sprint("two-", i))
		}()
	}
	// The holder's turn stalls until both others have given up.
	var done []execRun
	for len(done) < 2 {
		done = append(done, <-results)
	}
	srv.Release()
	done = append(done, <-results)
	ok, busy := 0, 0
	want := fmt.Sprintf("session %s is in use by process %d", ent.ID, os.Getpid())
	for _, r := range done {
		switch {
		case r.code == 0 && r.stdout == "resumed answer\n":
			ok++
		case r.code == exitcode.Failed && strings.Contains(r.stderr, want):
			busy++
		default:
			t.Errorf("resume: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	if ok != 1 || busy != 2 {
		t.Errorf("%d resumes ran and %d were refused; want 1 and 2", ok, busy)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, ev := range ro.Events {
		if ev.Type == rollout.EventTurnStarted {
			turns++
		}
	}
	if turns != 2 || len(srv.Requests()) != 2 {
		t.Errorf("%d turns recorded, %d requests; want 2 and 2 (one resumed turn)", turns, len(srv.Requests()))
	}
}

// TestBatchFullDisk: in a batch, a prompt whose session could not be saved
// is completed with its answer, exit class 6, and the batch exits 6.
func TestBatchFullDisk(t *testing.T) {
	t.Parallel()
	answer := strings.Repeat("x", 200<<10)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", answer)})
	home := smallDisk(t, srv, "64k")
	path := writeBatch(t, t.TempDir(), batchLine("a", "write a lot"))
	r := runCLI(t, nil, runOpts{env: map[string]string{"AGENT_HOME": home}, stdinTTY: true}, "exec", "--batch", path)
	if r.code != exitcode.NotSaved {
		t.Errorf("exit %d; want %d: %s", r.code, exitcode.NotSaved, r.stderr)
	}
	res := readResults(t, r.stdout)
	if len(res) != 1 || res[0].Status != batch.StatusCompleted || res[0].ExitClass != exitcode.NotSaved || res[0].FinalMessage != answer ||
		!strings.Contains(res[0].Error, "not saved") {
		t.Errorf("results = %+v", res)
	}
	if !strings.Contains(r.stderr, "1 completed, not saved (exit 6)") {
		t.Errorf("summary:\n%s", r.stderr)
	}
}
