package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Mode is a sandbox mode, spelled as in config.toml's sandbox_mode.
type Mode string

// The sandbox modes. The zero Mode means [ReadOnly].
const (
	// ReadOnly lets the command read everything and write nothing but a
	// few devices such as /dev/null. The network is off unless
	// [Policy.NetworkAccess].
	ReadOnly Mode = "read-only"
	// WorkspaceWrite also lets it write the workspace, the writable roots,
	// $TMPDIR and /tmp, except the .git of each of them.
	WorkspaceWrite Mode = "workspace-write"
	// DangerFullAccess runs the command without a sandbox.
	DangerFullAccess Mode = "danger-full-access"
)

// ParseMode returns the Mode spelled s; "" is [ReadOnly].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ReadOnly, nil
	case ReadOnly, WorkspaceWrite, DangerFullAccess:
		return m, nil
	}
	return "", fmt.Errorf("sandbox: unknown mode %q (want read-only, workspace-write or danger-full-access)", s)
}

// Policy is what a sandboxed command may do. The zero Policy is read-only,
// without network, in the current directory, refusing to run when the
// kernel cannot enforce it.
type Policy struct {
	// Mode is the sandbox mode; "" means [ReadOnly].
	Mode Mode
	// Workspace is the directory the command runs in, and is writable
	// under [WorkspaceWrite]. "" means the current directory. Relative
	// writable roots are resolved against it.
	Workspace string
	// WritableRoots are writable under [WorkspaceWrite], besides the
	// workspace. Each must exist.
	WritableRoots []string
	// ReadOnlyPaths stay read-only in a restricted mode even where they
	// lie inside a writable root, like the .git of each root: the agent's
	// own home ($AGENT_HOME, with its config, credentials and sessions)
	// belongs here. Relative paths are resolved against the workspace;
	// missing ones are skipped.
	ReadOnlyPaths []string
	// HiddenPaths are out of reach in a restricted mode, for reading too:
	// an empty read-only directory is mounted over each, so a command
	// sees neither the files in them nor their locks. The homes of the
	// agent and of any client it shares state with (Codex's) belong here:
	// their credentials, sessions and locks are no command's business.
	// Relative paths are resolved against the workspace; missing ones are
	// skipped, and so is one holding the workspace, which the command
	// needs.
	HiddenPaths []string
	// NetworkAccess leaves the network on in a restricted mode.
	NetworkAccess bool
	// ExcludeTmpdirEnvVar keeps $TMPDIR (as the calling process sees it)
	// read-only under [WorkspaceWrite]; ExcludeSlashTmp does the same for
	// /tmp.
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
	// BestEffort runs the command with whatever part of the policy the
	// kernel can enforce, possibly none, instead of failing with
	// [ErrUnavailable]. It is the opt-out for kernels without Landlock or
	// without unprivileged namespaces.
	BestEffort bool
}

// mode returns p.Mode with the zero value resolved.
func (p Policy) mode() Mode {
	if p.Mode == "" {
		return ReadOnly
	}
	return p.Mode
}

// networkOff reports whether p cuts the network.
func (p Policy) networkOff() bool {
	return p.mode() != DangerFullAccess && !p.NetworkAccess
}

// ExitHelperFailed is the exit status of a sandboxed command whose helper
// could not apply the policy; the command itself never ran and the reason
// is on its standard error, prefixed "agent sandbox: ".
const ExitHelperFailed = 125

// ErrUnavailable matches (with errors.Is) every error saying that the
// kernel cannot enforce a policy; the error is an [*UnavailableError].
var ErrUnavailable = errors.New("sandbox: not available")

// UnavailableError says which part of a policy the kernel cannot enforce,
// and why. It matches [ErrUnavailable].
type UnavailableError struct {
	// What is the missing layer, such as "Landlock" or "a network
	// namespace".
	What string
	// Err is the cause reported by the kernel or the probe.
	Err error
}

// Error implements error.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox: cannot enforce the policy without %s, refusing to run the command: %v", e.What, e.Err)
}

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrUnavailable].
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Command returns a command that runs name with args under p. The caller
// sets Stdin, Stdout, Stderr, Env and may change Dir (the workspace by
// default) before starting it; Env is passed through to the command
// unchanged. SysProcAttr carries the namespaces and the new session:
// callers may set other fields on it but must keep Cloneflags, the ID
// mappings and Setsid (so not set Setpgid, Setctty or Foreground), or the
// helper refuses to run. name is looked up in the PATH of the command's
// environment.
//
// ctx bounds the probes Command runs and, as with exec.CommandContext, the
// command: when ctx is done the process is killed (by Cancel).
//
// Command returns an error matching [ErrUnavailable] when the kernel
// cannot enforce p and p.BestEffort is false. Under [DangerFullAccess] it
// returns an unsandboxed command, and under best effort on a kernel that
// can enforce nothing, one in a new session; on Linux either runs under a
// guard (the binary re-executed, so [MaybeRunHelper] is needed here too)
// that kills everything the command started when agent dies or Cancel
// runs; callers must keep its SysProcAttr.Pdeathsig and Cancel.
func Command(ctx context.Context, p Policy, name string, args ...string) (*exec.Cmd, error) {
	mode, err := ParseMode(string(p.Mode))
	if err != nil {
		return nil, err
	}
	p.Mode = mode
	ws := p.Workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("sandbox: workspace: %w", err)
		}
	}
	if ws, err = realDir(ws); err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	p.Workspace = ws
	if mode == DangerFullAccess {
		return plainCommand(ctx, ws, name, args), nil
	}
	return sandboxedCommand(ctx, p, name, args)
}

// plainCommand is an unsandboxed command running in dir, under the guard
// that ends what it started when agent dies or the command is cancelled
// (see [guard]; Linux only).
func plainCommand(ctx context.Context, dir, name string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	guard(cmd)
	return cmd
}

// realDir returns dir made absolute with symlinks resolved, or an error if
// it is not a directory.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}
