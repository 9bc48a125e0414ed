package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/tools/sandbox"
)

// TestE2ESandboxedCommands: a scripted model runs `echo hi > f` through
// the real binary under each sandbox mode.
func TestE2ESandboxedCommands(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("the kernel cannot sandbox here: %v", err)
	}
	outside := t.TempDir()
	tests := []struct {
		name    string
		mode    string
		cmd     string
		file    string // path checked afterwards, relative to the workspace unless absolute
		written bool
		output  string
	}{
		{"read-only denies the write and tells the model", "read-only", "echo hi > f", "f", false, "the sandbox (read-only) denied this"},
		{"workspace-write writes in the workspace", "workspace-write", "echo hi > f", "f", true, "Process exited with code 0"},
		{"workspace-write denies writing outside", "workspace-write", "echo hi > " + filepath.Join(outside, "f"), filepath.Join(outside, "f"), false, "denied"},
		{"workspace-write keeps .git read-only", "workspace-write", "mkdir -p .git && echo x > .git/config", ".git/config", false, "Read-only file system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), agenttest.ExecCallStep(tt.cmd), rt.Completed("r1")),
				rt.Reply("r2", "m2", "done"),
			})
			home := writeConfig(t, srv.URL, "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n")
			work := t.TempDir()
			if strings.Contains(tt.cmd, ".git") {
				os.Mkdir(filepath.Join(work, ".git"), 0o755)
			}
			cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "-s", tt.mode, "-C", work, "do it")
			if err := cmd.Run(); err != nil {
				t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
			}
			if stdout.String() != "done\n" {
				t.Errorf("stdout = %q", stdout)
			}
			path := tt.file
			if !filepath.IsAbs(path) {
				path = filepath.Join(work, path)
			}
			b, err := os.ReadFile(path)
			if tt.written && (err != nil || string(b) != "hi\n") {
				t.Errorf("%s = %q, %v; want hi", path, b, err)
			}
			if !tt.written && err == nil && len(b) > 0 {
				t.Errorf("%s was written: %q", path, b)
			}
			if out := agenttest.CallOutput(t, srv); !strings.Contains(out, tt.output) {
				t.Errorf("the model was told:\n%s\nwant it to contain %q", out, tt.output)
			}
		})
	}
}

// TestE2EAgentHomeReadOnly: with AGENT_HOME inside the workspace (agent
// run in $HOME), a scripted model tries to add an MCP server to
// config.toml, by a command and by a patch, under workspace-write; both
// fail, and a workspace write and git status still work.
func TestE2EAgentHomeReadOnly(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("the kernel cannot sandbox here: %v", err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	patchArgs, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Update File: .agent/config.toml\n@@\n model = \"test-model\"\n+[mcp_servers.x]\n+command = \"sh\"\n*** End Patch\n"})
	for _, tt := range []struct {
		name, want string
		step       rt.Step
	}{
		{"command", "Read-only file system", agenttest.ExecCallStep(`echo ok > f; printf '[mcp_servers.x]\ncommand = "sh"\n' >> .agent/config.toml; git status --porcelain`)},
		{"patch", "it is in the agent's home", rt.FunctionCallDone("fc1", "call_1", "apply_patch", string(patchArgs))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), tt.step, rt.Completed("r1")),
				rt.Reply("r2", "m2", "done"),
			})
			cfgBytes, err := os.ReadFile(filepath.Join(writeConfig(t, srv.URL, ""), "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			if out, err := exec.Command(git, "init", "-q", work).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			home := filepath.Join(work, ".agent")
			cfg := filepath.Join(home, "config.toml")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, cfgBytes, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "-s", "workspace-write", "-C", work, "do it")
			if err := cmd.Run(); err != nil {
				t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
			}
			if stdout.String() != "done\n" {
				t.Errorf("stdout = %q", stdout)
			}
			if b, _ := os.ReadFile(cfg); string(b) != string(cfgBytes) {
				t.Errorf("config.toml changed:\n%s", b)
			}
			out := agenttest.CallOutput(t, srv)
			if strings.Contains(out, "cannot enforce the policy") {
				t.Skipf("the kernel cannot enforce the policy here:\n%s", out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("the model was told:\n%s\nwant it to contain %q", out, tt.want)
			}
			if tt.name == "command" {
				if b, _ := os.ReadFile(filepath.Join(work, "f")); string(b) != "ok\n" {
					t.Errorf("workspace write: f = %q", b)
				}
				if !strings.Contains(out, "?? f") {
					t.Errorf("git status did not run in the sandbox:\n%s", out)
				}
			}
		})
	}
}

// TestE2EHugeCommandOutputBoundedMemory: a command printing 200 MB leaves
// agent exec under 128 MiB of resident memory (its peak, VmHWM, read while
// the model's last request is held, after the output was taken), and the
// model still gets the head, the tail and the original size. The model
// polls the command with write_stdin, as a real one does, so how fast the
// machine moves 200 MB through a pipe does not matter: idle, the command
// ends inside exec_command's 30 s yield and the poll finds no session; at a
// load of 30 it did not, and the poll takes the rest.
func TestE2EHugeCommandOutputBoundedMemory(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	args, _ := json.Marshal(map[string]any{
		"cmd":           `printf HEAD; head -c 200000000 /dev/zero | tr '\0' a; printf TAIL`,
		"yield_time_ms": 30000, "login": false,
	})
	poll := `{"session_id":1,"chars":"","yield_time_ms":300000}`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args)), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("fc2", "call_2", "write_stdin", poll), rt.Completed("r2")),
		rt.Stream(rt.Barrier("told"), rt.Stall(), rt.Created("r3"), rt.MessageDone("m3", "done"), rt.Completed("r3")),
	})
	home := writeConfig(t, srv.URL, "")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "-s", "danger-full-access", "do it")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-srv.Reached("told"):
	case err := <-exited:
		t.Fatalf("agent exec ended before its last request: %v\nstderr:\n%s", err, stderr)
	}
	peak := vmHWM(t, cmd.Process.Pid)
	srv.Release()
	if err := <-exited; err != nil {
		t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
	}
	t.Logf("peak RSS (VmHWM) of agent exec: %d MiB", peak>>20)
	if peak >= 128<<20 {
		t.Errorf("peak RSS %d MiB for a 200 MB command output; want under 128 MiB", peak>>20)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	first, polled := agenttest.OutputOf(t, reqs[2], "call_1"), agenttest.OutputOf(t, reqs[2], "call_2")
	type want struct{ out, part string }
	wants := []want{{first, "Output:\nHEADaaa"}}
	tokens, rounding := tokenCount(t, first), 0
	if strings.Contains(first, "Process exited with code 0\n") {
		wants = append(wants, want{first, "aaaTAIL\nWarning: truncated output"}, want{polled, "no running process with session ID 1"})
	} else {
		t.Logf("the command outlived the 30 s yield; the poll took the rest")
		wants = append(wants, want{first, "Process running with session ID 1\n"},
			want{polled, "Process exited with code 0\n"}, want{polled, "TAIL"})
		tokens += tokenCount(t, polled)
		rounding = 1 // each part's count rounds up
	}
	for _, w := range wants {
		if !strings.Contains(w.out, w.part) {
			t.Errorf("the model was told %q…%q; want %q in it", w.out[:min(len(w.out), 300)], w.out[max(0, len(w.out)-300):], w.part)
		}
	}
	// 200,000,008 bytes are 50,000,002 tokens.
	if tokens < 50000002 || tokens > 50000002+rounding {
		t.Errorf("original token count %d over the outputs; want 50000002 (the whole output)", tokens)
	}
}

// tokenCount is the size in tokens of the whole output an exec output
// reports: its "Original token count" when it was cut, else its own.
func tokenCount(t *testing.T, out string) int {
	t.Helper()
	if m := regexp.MustCompile(`Original token count: (\d+)\n`).FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	_, text, ok := strings.Cut(out, "Output:\n")
	if !ok {
		t.Fatalf("no output in %q…", out[:min(len(out), 300)])
	}
	return (len(text) + 3) / 4
}

// vmHWM returns the peak resident set of process pid, from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %q", line)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
