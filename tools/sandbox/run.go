package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Run runs argv under p with the given standard streams, as `agent
// sandbox` does, and returns the shell's view of how it ended: its exit
// code, or 128+N when signal N killed it. err is non-nil when the command
// could not be run under p (then code is [ExitHelperFailed]) or did not
// succeed. The command is in a session of its own, so an interrupt reaches
// the caller alone: ctx ending sends it SIGTERM and lets it decide, as a
// shell would.
func Run(ctx context.Context, p Policy, argv []string, stdin io.Reader, stdout, stderr io.Writer) (code int, err error) {
	cmd, err := Command(ctx, p, argv[0], argv[1:]...)
	if errors.Is(err, ErrUnavailable) {
		err = fmt.Errorf("%w (pass --best-effort to run it anyway)", err)
	}
	if err != nil {
		return ExitHelperFailed, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	err = cmd.Run()
	if cmd.ProcessState == nil {
		return ExitHelperFailed, err
	}
	if code = ExitStatus(cmd.ProcessState); code != 0 {
		return code, fmt.Errorf("%s: %v", argv[0], cmd.ProcessState)
	}
	return 0, nil
}

// ExitStatus is the shell's view of how a process ended: its exit code,
// or 128+N when signal N killed it.
func ExitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
