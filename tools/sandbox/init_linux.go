package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwardedSignals are the signals the helper, as pid 1 of the command's
// PID namespace, passes on to the command: those a terminal, a shell or
// agent's cancellation send. The kernel would drop them at pid 1 unless
// it handled them.
var forwardedSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGALRM, syscall.SIGCONT,
}

// runAsInit runs path as the child of the helper, which is pid 1 of a new
// PID namespace: it forwards signals to it, reaps every orphan the
// namespace hands it, and returns the child's exit status (128+N when
// signal N killed it, since pid 1 cannot die of a signal it sent itself)
// once the child is gone. The helper then exits, and the kernel kills
// whatever is left in the namespace: nothing the command started outlives
// it. The child inherits the helper's restrictions (seccomp, Landlock,
// no_new_privs and, being forked from this locked thread, its
// capabilities) and every inherited descriptor.
func runAsInit(path string, argv []string) (int, error) {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals...)
	// The command leads a session of its own, as it would without the
	// helper in between.
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: inheritedFiles(), Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		code := 126
		if errors.Is(err, syscall.ENOENT) {
			code = 127
		}
		return code, err
	}
	// The streams are the command's now; the helper keeps standard error
	// alone, for its own messages.
	unix.Close(0)
	unix.Close(1)
	go func() {
		for sig := range sigs {
			_ = syscall.Kill(pid, sig.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return ExitHelperFailed, err
		}
		if got != pid {
			continue // an orphan
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// inheritedFiles lists the descriptors the helper was given without
// close-on-exec, at their own numbers, for the command to inherit; the
// runtime's own are close-on-exec.
func inheritedFiles() []uintptr {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return []uintptr{0, 1, 2}
	}
	var fds []int
	top := 2
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
			top = max(top, fd)
		}
	}
	files := make([]uintptr, top+1)
	for i := range files {
		files[i] = ^uintptr(0) // closed in the child
	}
	for _, fd := range append(fds, 0, 1, 2) {
		files[fd] = uintptr(fd)
	}
	return files
}
