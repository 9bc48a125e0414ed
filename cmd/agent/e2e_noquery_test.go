//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// terminalQuery matches what a program writes to ask its terminal
// something: an OSC query (ESC ] 11 ; ? is the background colour), device
// attributes (ESC [ c, ESC [ > c) and a status or cursor-position report
// (ESC [ 5 n, ESC [ 6 n).
var terminalQuery = regexp.MustCompile(`\x1b\][0-9;]*\?|\x1b\[[>=]?[0-9;]*c|\x1b\[\??[0-9;]*n`)

// TestE2ENoTerminalQuery runs agent's non-chat commands on a
// pseudo-terminal that never answers (as script, expect and orchestrators
// give one), with and without NO_COLOR: none may write a query to it,
// since each would stall until a timeout (termenv's is 5 s) and leave the
// query's bytes, or a late answer, in the user's terminal. bubbletea v1's
// package init asked for the background in every process before package
// quietterm. The time bound is only there to end a hung run.
func TestE2ENoTerminalQuery(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hello"), rt.Reply("r2", "m2", "hello")})
	home := writeConfig(t, srv.URL, "")
	for _, noColor := range []bool{false, true} {
		for _, args := range [][]string{{"--version"}, {"doctor", "--offline"}, {"exec", "hi"}} {
			name := args[0]
			if noColor {
				name += "/NO_COLOR"
			}
			t.Run(name, func(t *testing.T) {
				env := []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "TERM=xterm-256color", "COLORTERM=truecolor"}
				if noColor {
					env = append(env, "NO_COLOR=1")
				}
				out, err := runOnSilentTerminal(t, bin, env, args...)
				if err != nil {
					t.Errorf("agent %v: %v\n%q", args, err, out)
				}
				if q := terminalQuery.FindAll(out, -1); q != nil {
					t.Errorf("agent %v wrote terminal queries %q; terminal:\n%q", args, q, out)
				}
			})
		}
	}
}

// runOnSilentTerminal runs bin with args on a new pseudo-terminal (its
// controlling terminal, standard input, output and error) that never
// answers, and returns what it wrote. A run still going after 60 s is
// killed and reported as hung.
func runOnSilentTerminal(t *testing.T, bin string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil { // EIO once agent and the test closed the terminal
				return
			}
		}
	})
	if err := cmd.Start(); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close()
	hung := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	err = cmd.Wait()
	if !hung.Stop() {
		t.Errorf("agent %v still ran after 60 s on a terminal that does not answer", args)
	}
	wg.Wait()
	return out.Bytes(), err
}
