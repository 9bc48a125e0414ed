package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// guardArg marks a process as the guard of an unsandboxed command; see
// [guard].
const guardArg = "--agent-command-guard"

// The guard's own signals, real-time ones nothing else sends it: the
// caller's order to end the command and everything it started (the
// command's Cancel), and the guard's parent-death signal.
const (
	sigEnd         = syscall.Signal(40) // SIGRTMIN+8 in the kernel's numbering
	sigParentDeath = syscall.Signal(41)
)

// guardEndBound bounds how long the guard goes on killing descendants
// (a process in uninterruptible sleep dies late) before it gives up.
const guardEndBound = 5 * time.Second

// guard makes cmd, an unsandboxed command, run under the guard: agent's
// own binary re-executed (as the sandbox helper is) that runs the command
// as its child, in the same session and process group, with the same
// streams, descriptors, environment and working directory, and exits as
// the command did. As a child subreaper it adopts whatever the command
// leaves running (`sleep 300 &` once its shell exits), and it ends all of
// it, killing every descendant, when agent dies (its parent-death signal)
// or cmd's Cancel runs (an interrupted turn, a stopped exec session). A
// command that exits leaves what it started running, as without the
// guard. cmd.Err (a name not found) is left for Start to report, as
// without the guard.
func guard(cmd *exec.Cmd) {
	if cmd.Err != nil {
		return
	}
	cmd.Args = append([]string{selfExe, guardArg, strconv.Itoa(os.Getpid()), cmd.Path}, cmd.Args...)
	cmd.Path = selfExe
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sigParentDeath
	cmd.Cancel = func() error { return cmd.Process.Signal(sigEnd) }
}

// runGuard is the guard: args are agent's pid, the command's path and its
// argv. It returns only when the command could not be started, or exited
// in a way the guard cannot repeat (a signal it cannot die of itself).
func runGuard(args []string, stderr io.Writer) int {
	// The command's parent-death signal follows the thread that forked it.
	runtime.LockOSThread()
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "%sguard: %v\n", helperPrefix, err)
		return code
	}
	if len(args) < 3 {
		return fail(ExitHelperFailed, errors.New("usage: PARENT PATH ARGV0 [ARG...]"))
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil {
		return fail(ExitHelperFailed, fmt.Errorf("bad parent pid %q", args[0]))
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(ExitHelperFailed, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err))
	}
	ignored := map[os.Signal]bool{}
	for _, s := range guardForwarded {
		ignored[s] = signal.Ignored(s)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, append([]os.Signal{sigEnd, sigParentDeath}, guardForwarded...)...)
	if os.Getppid() != parent {
		return fail(ExitHelperFailed, errors.New("agent exited before the command started"))
	}
	// The command dies with the guard, should the guard itself be killed.
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{Env: os.Environ(), Files: inheritedFiles(),
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		code := 126
		if errors.Is(err, syscall.ENOENT) {
			code = 127
		}
		return fail(code, fmt.Errorf("exec %s: %w", args[1], err))
	}
	// The streams are the command's now: they close when it and what it
	// started are done. Standard error stays, for the guard's messages.
	if null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		unix.Dup3(null, 0, 0)
		unix.Dup3(null, 1, 0)
		unix.Close(null)
	}
	exited := make(chan syscall.WaitStatus, 1)
	go reap(pid, exited)
	for {
		select {
		case ws := <-exited:
			return dieAs(ws, ignored)
		case s := <-sigs:
			switch {
			case s == sigEnd, s == sigParentDeath && os.Getppid() != parent:
				endDescendants(os.Getpid(), guardEndBound)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			case s == sigParentDeath:
				// Only the thread that started the guard ended; agent runs.
			case !fromTerminal(s):
				_ = syscall.Kill(pid, s.(syscall.Signal))
			}
		}
	}
}

// guardForwarded are the signals the guard passes on to the command: those
// a shell, a terminal or the caller (sandbox.Run's SIGTERM) send.
var guardForwarded = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGALRM,
}

// fromTerminal reports whether s is one a terminal sends its foreground
// process group and the guard is in that group: the command, in the same
// group, got it too and must not get it twice.
func fromTerminal(s os.Signal) bool {
	switch s {
	case syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGWINCH:
	default:
		return false
	}
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // no controlling terminal
	}
	defer unix.Close(fd)
	fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && fg == unix.Getpgrp()
}

// reap waits for the guard's children, the command and every orphan
// adopted, and sends the command's status on exited.
func reap(pid int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return
		case got == pid && (ws.Exited() || ws.Signaled()):
			exited <- ws
		}
	}
}

// dieAs ends the guard as the command ended: with its exit status, or by
// the same signal when the Go runtime lets the guard die of it (SIGKILL,
// and SIGHUP, SIGINT or SIGTERM unless they were ignored), else with
// 128+N, as a shell reports it.
func dieAs(ws syscall.WaitStatus, ignored map[os.Signal]bool) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	switch {
	case sig == syscall.SIGKILL:
		syscall.Kill(os.Getpid(), sig)
	case (sig == syscall.SIGHUP || sig == syscall.SIGINT || sig == syscall.SIGTERM) && !ignored[sig]:
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the runtime's handler kills the process
	}
	return 128 + int(sig)
}

// endDescendants kills every live descendant of pid with SIGKILL, again
// and again, until none is left or bound has passed: a process forked
// between a look and the kills is adopted by pid (a subreaper) when its
// parent dies, and found by the next look.
func endDescendants(pid int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	pause := time.Millisecond
	for {
		pids := descendants(pid)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// descendants lists the live (not zombie) descendants of pid, from /proc.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		kids := children[queue[0]]
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	return out
}
