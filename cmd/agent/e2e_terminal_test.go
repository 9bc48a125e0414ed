//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/tools/sandbox"
)

// TestE2ETerminalInjection replays the attack on agent: `agent exec`, in
// the default read-only mode, runs on the user's terminal, and the model
// runs a command that pushes a line into that terminal with TIOCSTI, for
// the user's shell to run after agent exits. Nothing may reach the
// terminal's input, and the model's other output must still arrive.
func TestE2ETerminalInjection(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("the kernel cannot sandbox here: %v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 for the attacker")
	}
	// The injected line is assembled at run time so that it appears
	// nowhere in the command text agent may print.
	attack := python + ` -c 'import fcntl, termios
line = "echo INJ" + "ECTED\n"
for fd in ("/dev/tty", 0, 1, 2):
    try:
        if fd == "/dev/tty": fd = open(fd, "w")
        for c in line: fcntl.ioctl(fd, termios.TIOCSTI, c.encode())
        print("pushed into", fd)
    except Exception as e:
        print("refused", fd, e)
'; printf '\033[32mstill colour\033[0m\n'`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.ExecCallStep(attack), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	})
	home := writeConfig(t, srv.URL, "")
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	defer slave.Close() // kept open to read what the terminal holds afterwards
	cmd := exec.Command(bin, "exec", "-C", t.TempDir(), "do it")
	cmd.Env = []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "TERM=xterm"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var out bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil { // EIO once agent and the test closed the terminal
				return
			}
		}
	})
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec on a terminal: %v", err)
	}
	pending, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	unix.IoctlSetInt(int(slave.Fd()), unix.TCFLSH, unix.TCIFLUSH)
	slave.Close()
	master.Close()
	wg.Wait()
	mu.Lock()
	term := out.String()
	mu.Unlock()
	if pending != 0 || strings.Contains(term, "INJECTED") {
		t.Errorf("%d bytes were injected into the terminal's input; terminal:\n%s", pending, term)
	}
	if !strings.Contains(term, "done") {
		t.Errorf("the answer did not reach the terminal:\n%s", term)
	}
	told := agenttest.CallOutput(t, srv)
	if strings.Contains(told, "cannot enforce the policy") {
		t.Skipf("the kernel cannot enforce the policy here:\n%s", told)
	}
	if strings.Contains(told, "pushed into") || strings.Count(told, "refused") != 4 {
		t.Errorf("the model was told:\n%s\nwant every push refused", told)
	}
	if !strings.Contains(told, "\x1b[32mstill colour\x1b[0m") {
		t.Errorf("colours did not reach the model:\n%s", told)
	}
	if _, err := os.Stat(filepath.Join(home, "PWNED")); err == nil {
		t.Error("PWNED exists")
	}
}
