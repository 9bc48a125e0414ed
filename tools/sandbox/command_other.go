//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// Available reports that this system has no sandbox: Landlock is Linux
// only. The error is an [*UnavailableError].
func Available() (abi int, err error) {
	return 0, &UnavailableError{What: "Landlock", Err: errors.New(runtime.GOOS + " has no Landlock")}
}

// MaybeRunHelper returns at once: there is no helper outside Linux.
func MaybeRunHelper() {}

// sandboxedCommand runs the command unsandboxed under best effort, and
// refuses otherwise.
func sandboxedCommand(ctx context.Context, p Policy, name string, args []string) (*exec.Cmd, error) {
	if _, err := Available(); !p.BestEffort {
		return nil, err
	}
	return plainCommand(ctx, p.Workspace, name, args), nil
}

// killedBySeccomp is false: there is no seccomp outside Linux.
func killedBySeccomp(*exec.ExitError) bool { return false }

// guard leaves cmd as it is: the guard is Linux only.
func guard(*exec.Cmd) {}
