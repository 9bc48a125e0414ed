//go:build linux

package sandbox_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/agentcli/agent/tools/sandbox"
)

// onTerminal runs this test binary as agent (see actAsAgent) with a fresh
// pseudo-terminal as its controlling terminal and standard streams, and
// returns everything written to the terminal.
func onTerminal(t *testing.T, mode sandbox.Mode) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	cmd := exec.CommandContext(t.Context(), exe)
	cmd.Env = append(os.Environ(), agentEnv+"="+string(mode))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close()
	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&out, master) }) // ends with EIO once every slave is closed
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent on a terminal: %v", err)
	}
	wg.Wait()
	return strings.ReplaceAll(out.String(), "\r\n", "\n")
}

func TestTerminalInjection(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	for _, mode := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			out := onTerminal(t, mode)
			t.Logf("terminal:\n%s", out)
			if strings.Contains(out, "the kernel cannot enforce") || strings.Contains(out, "not available") {
				t.Skipf("no sandbox here: %s", out)
			}
			for _, want := range []string{
				"session leader: true\n",
				"open /dev/tty: open /dev/tty: no such device or address\n",
				"TIOCSTI stdin: operation not permitted\n",
				"TIOCSTI|1<<32 stdin: operation not permitted\n",
				// A pty answers EINVAL when no seccomp filter stops TIOCLINUX first.
				"TIOCLINUX stdin: operation not permitted\n",
				"\x1b[31mred\x1b[0m ok\n", // colours pass
				"pending input: 0 <nil>\n",
				// Not the user's terminal by path (/dev/pts/N), but a pty of its own.
				"open terminal for read: refused\n",
				"open terminal for write: refused\n",
				"new pty: <nil>\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("terminal output lacks %q", want)
				}
			}
			if n := strings.Count(out, "exit: <nil>\n"); n != 3 {
				t.Errorf("%d of 3 commands exited 0", n)
			}
			if strings.Contains(out, "injected") || strings.Contains(out, "agent-test-PWNED") {
				t.Errorf("a sandboxed command injected input into the terminal")
			}
		})
	}
	t.Run("control: danger-full-access", func(t *testing.T) {
		t.Parallel()
		// Proves the attack works where nothing stops it, so that the
		// test above can fail.
		b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
		if err != nil || strings.TrimSpace(string(b)) != "1" || os.Geteuid() != 0 {
			t.Skipf("TIOCSTI is off on this kernel or needs root (legacy_tiocsti %q, %v)", b, err)
		}
		out := onTerminal(t, sandbox.DangerFullAccess)
		if !strings.Contains(out, "open terminal for read: opened\n") {
			t.Errorf("unsandboxed open of the terminal failed; terminal:\n%s", out)
		}
		if !strings.Contains(out, "TIOCSTI /dev/tty: injected") || strings.Contains(out, "pending input: 0 ") {
			t.Errorf("unsandboxed injection failed; terminal:\n%s", out)
		}
	})
}
