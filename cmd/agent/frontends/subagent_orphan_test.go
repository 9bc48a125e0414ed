//go:build linux

package frontends

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// TestSubagentCrashLeavesNoOrphan: subagents are sessions in agent's own
// process, so a crash of agent (SIGKILL, no cleanup run) ends their model
// requests with it; what could outlive it are their commands. A child
// whose command started a background process (`sleep 300 &`, a grandchild
// of agent) is running when agent is killed: that process must not
// survive. Under a sandbox (workspace-write here) the command runs in a
// PID namespace whose helper dies with agent (Pdeathsig), taking every
// process of the namespace with it; under danger-full-access it runs under
// the guard, a subreaper whose parent-death signal makes it kill every
// descendant it has.
func TestSubagentCrashLeavesNoOrphan(t *testing.T) {
	t.Parallel() // its sleep is found by its own workspace
	bin := buildAgent(t)
	for _, sandbox := range []string{"workspace-write", "danger-full-access"} {
		t.Run(sandbox, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			pidFile := filepath.Join(work, "sleep.pid")
			fc := func(resp, id, name, args string) rt.Attempt {
				return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
			}
			cmdArgs := `{"cmd":"sleep 300 & echo $! > sleep.pid; wait","yield_time_ms":250}`
			ps := agenttest.NewPromptServer(t, map[string]rt.Script{
				"parent task": {
					fc("p1", "c1", "spawn_agent", `{"message":"child task"}`),
					fc("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
					rt.Hang(),
				},
				"child task": {fc("k1", "k1c", "exec_command", cmdArgs), rt.Hang()},
			})
			running := make(chan struct{})
			ps.OnRequest = func(prompt string, n int) {
				if prompt == "child task" && n == 1 {
					close(running) // the command ran and yielded
				}
			}
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(ps.Config()), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "exec", "-s", sandbox, "-C", work, "parent task")
			cmd.Env = []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir()}
			var stderr syncbuf.Buffer // written by the process while a failure reads it
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			select {
			case <-running:
			case <-time.After(30 * time.Second):
				t.Fatalf("the child's command did not run\n%s", &stderr)
			}
			// The child's next request comes when the command yields
			// (250 ms), which on a busy machine can be before its shell
			// has started the sleep: wait for the sleep itself.
			var target int
			found := pollBackoff(30*time.Second, func() bool {
				// Inside a PID namespace the pid in the file is the
				// namespace's: find the sleep by its command line.
				target = findSleep(t, work)
				return target != 0
			})
			if !found {
				b, err := os.ReadFile(pidFile)
				t.Fatalf("no `sleep 300` of this workspace is running 30 s after its command yielded (pid file %q, %v)\n%s", b, err, &stderr)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for alive(target) {
				if time.Now().After(deadline) {
					syscall.Kill(target, syscall.SIGKILL)
					t.Fatalf("the subagent's background process %d outlived agent's SIGKILL by 10 s", target)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// findSleep returns the pid of the `sleep 300` whose working directory is
// dir, 0 if none.
func findSleep(t *testing.T, dir string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if string(cmdline) != "sleep\x00300\x00" {
			continue
		}
		if cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); cwd == dir {
			return pid
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
