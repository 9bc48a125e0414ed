//go:build linux

package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentcli/agent/tools/sandbox"
)

// detachAndWait starts processes in the background, two of them leaving
// the command's session and process group (setsid, a double fork), all
// holding its output, says so and waits.
const detachAndWait = `sleep 300 & setsid sh -c 'sleep 300' & (setsid sh -c 'sleep 300' &) ; echo started; wait`

// unsandboxed returns the danger-full-access command for sh -c script.
func unsandboxed(ctx context.Context, t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd, err := sandbox.Command(ctx, sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: t.TempDir()}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// runUnsandboxed plays agent for TestUnsandboxedLeavesNoOrphan: it runs
// sh -c script under danger-full-access with its own streams and waits.
func runUnsandboxed(script string) int {
	cmd, err := sandbox.Command(context.Background(), sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: "/"}, "sh", "-c", script)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// readStarted reads the first line from r and fails unless it is
// "started".
func readStarted(t *testing.T, r io.Reader) {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "started" {
		t.Fatalf("first line %q, %v", line, err)
	}
}

// TestUnsandboxedLeavesNoOrphan: an unsandboxed command has no PID
// namespace to die with, yet what it started in the background, in its
// process group or detached from it, ends when the command is cancelled
// (an interrupted turn, a stopped exec session) and when agent is killed
// (SIGKILL: no cleanup of agent's runs).
func TestUnsandboxedLeavesNoOrphan(t *testing.T) {
	t.Parallel()
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cmd := unsandboxed(ctx, t, detachAndWait)
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		readStarted(t, r)
		cancel()
		cmd.Wait()
		// The caller sees the command killed, as by a SIGKILL of its pid.
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("cancelled command ended %v; want killed", cmd.ProcessState)
		}
		if !pipeClosed(t, r) {
			t.Errorf("processes the command started outlived its cancellation by %v", survivorBound)
		}
	})
	t.Run("agent killed", func(t *testing.T) {
		t.Parallel()
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		agent := exec.Command(exe)
		agent.Env = append(os.Environ(), guardEnv+"="+detachAndWait)
		agent.Stdout, agent.Stderr = w, w
		if err := agent.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		readStarted(t, r)
		agent.Process.Kill()
		agent.Wait()
		if !pipeClosed(t, r) {
			t.Errorf("processes the command started outlived agent's SIGKILL by %v", survivorBound)
		}
	})
}

// TestUnsandboxedAsBefore: under the guard an unsandboxed command sees
// the streams, descriptors, environment and directory it was given, and
// the caller sees its output, exit status, death by a signal and a
// missing program as without the guard.
func TestUnsandboxedAsBefore(t *testing.T) {
	t.Parallel()
	t.Run("streams, environment, directory, status", func(t *testing.T) {
		t.Parallel()
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd := unsandboxed(t.Context(), t, `cat; echo " $FOO"; pwd -P; echo three >&3; echo err >&2; exit 3`)
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("in"), &stdout, &stderr
		cmd.ExtraFiles = []*os.File{w}
		cmd.Env = []string{"FOO=bar", "PATH=" + os.Getenv("PATH")}
		cmd.Dir = dir
		err = cmd.Run()
		w.Close()
		if got, want := stdout.String(), "in bar\n"+dir+"\n"; got != want {
			t.Errorf("stdout %q; want %q", got, want)
		}
		if stderr.String() != "err\n" {
			t.Errorf("stderr %q", stderr.String())
		}
		if fd3, _ := io.ReadAll(r); string(fd3) != "three\n" {
			t.Errorf("descriptor 3 got %q", fd3)
		}
		if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("Run = %v; want exit status 3", err)
		}
	})
	t.Run("killed by a signal", func(t *testing.T) {
		t.Parallel()
		err := unsandboxed(t.Context(), t, `kill -TERM $$`).Run()
		if err == nil || err.Error() != "signal: terminated" {
			t.Errorf("Run = %v; want signal: terminated", err)
		}
	})
	t.Run("SIGTERM is the command's to handle", func(t *testing.T) {
		t.Parallel()
		// The shell runs the trap between commands: the test feeds it
		// lines until it does.
		cmd := unsandboxed(t.Context(), t, `trap 'echo term; exit 7' TERM; echo started; while read x; do echo again; done`)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(out)
		readStarted(t, br)
		cmd.Process.Signal(syscall.SIGTERM)
		deadline := time.Now().Add(survivorBound)
		line := "again\n"
		for line == "again\n" && time.Now().Before(deadline) {
			io.WriteString(in, "x\n")
			line, _ = br.ReadString('\n')
		}
		in.Close()
		err = cmd.Wait()
		if line != "term\n" || cmd.ProcessState.ExitCode() != 7 {
			t.Errorf("after SIGTERM: output %q, %v; want term, exit status 7", line, err)
		}
	})
	t.Run("program not found", func(t *testing.T) {
		t.Parallel()
		cmd, err := sandbox.Command(t.Context(), sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: t.TempDir()}, "no-such-program-agent-test")
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("Start = %v; want exec.ErrNotFound", err)
		}
	})
}

// TestUnsandboxedOnTerminal: an unsandboxed command started on a terminal
// keeps it: it reads it in the foreground, and Ctrl-C interrupts it.
func TestUnsandboxedOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	cmd := unsandboxed(t.Context(), t, `test -t 0 && echo on-tty; echo started; exec cat`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty = true, true
	if err := cmd.Start(); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close()
	var out bytes.Buffer
	var wg sync.WaitGroup
	br := bufio.NewReader(master)
	if line, err := br.ReadString('\n'); line != "on-tty\r\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	readStarted(t, br)
	io.WriteString(master, "hello\n")
	// cat echoes the line after the terminal does: then it is reading.
	for n := 0; n < 2; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the terminal: %v", err)
		}
		if line == "hello\r\n" {
			n++
		}
	}
	io.WriteString(master, "\x03")
	wg.Go(func() { io.Copy(&out, br) }) // ends with EIO once every slave is closed
	err = cmd.Wait()
	wg.Wait()
	if err == nil || err.Error() != "signal: interrupt" {
		t.Errorf("after Ctrl-C: %v; want signal: interrupt (terminal: %q)", err, out.String())
	}
}

// BenchmarkUnsandboxedCommand measures what the guard adds to a command:
// start and wait of `true` under danger-full-access, without the guard,
// and under workspace-write (the sandbox helper) for comparison.
func BenchmarkUnsandboxedCommand(b *testing.B) {
	ws := b.TempDir()
	for _, mode := range []sandbox.Mode{sandbox.DangerFullAccess, sandbox.WorkspaceWrite} {
		p := sandbox.Policy{Mode: mode, Workspace: ws}
		b.Run(string(mode), func(b *testing.B) {
			for b.Loop() {
				cmd, err := sandbox.Command(b.Context(), p, "true")
				if err != nil {
					b.Skip(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.CommandContext(b.Context(), "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
