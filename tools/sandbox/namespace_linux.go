package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// probeOK is what a helper prints when started with [probeArg].
const probeOK = "agent-sandbox-probe-ok"

// nsNeed says which namespaces the helper must start in.
type nsNeed struct {
	mount bool // for the read-only mounts and the private devpts
	net   bool // for a network without interfaces
	pid   bool // so that no process the command starts outlives it; needs mount
	ipc   bool // SysV IPC and POSIX message queues of its own
}

// flags returns the clone flags for n, without CLONE_NEWUSER.
func (n nsNeed) flags() uintptr {
	var f uintptr
	if n.mount {
		f |= syscall.CLONE_NEWNS
	}
	if n.net {
		f |= syscall.CLONE_NEWNET
	}
	if n.pid {
		f |= syscall.CLONE_NEWPID
	}
	if n.ipc {
		f |= syscall.CLONE_NEWIPC
	}
	return f
}

// candidates returns the ways to create the namespaces, best first. Root
// creates them directly, keeping its identity over every file; if that is
// not allowed (a container without CAP_SYS_ADMIN) it may still own a user
// namespace. Everyone else needs a user namespace, in which the caller's
// uid and gid map to themselves so that files keep their owners and the
// command, exec'd by a non-root uid, holds none of the namespace's
// capabilities.
func (n nsNeed) candidates() []*syscall.SysProcAttr {
	uid, gid := os.Geteuid(), os.Getegid()
	user := &syscall.SysProcAttr{
		Cloneflags:  n.flags() | syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	if n.mount && uid != 0 {
		// A non-root uid loses the namespace's capabilities when it
		// execs the helper; an ambient CAP_SYS_ADMIN (valid in the new
		// namespace only) survives for the bind mounts, and the helper
		// clears it before it execs the command.
		user.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	if uid == 0 {
		return []*syscall.SysProcAttr{{Cloneflags: n.flags()}, user}
	}
	return []*syscall.SysProcAttr{user}
}

// namespaces returns the SysProcAttr that starts the helper in the
// namespaces n needs, after checking that the kernel allows it by starting
// a probe helper that way. It returns nil, nil when n needs none, an
// [*UnavailableError] when every way is refused, and another error when
// the binary does not call [MaybeRunHelper].
func namespaces(ctx context.Context, n nsNeed) (*syscall.SysProcAttr, error) {
	if n.flags() == 0 {
		return nil, nil
	}
	var errs []error
	for _, attr := range n.candidates() {
		started, err := probe(ctx, attr)
		if err == nil {
			return attr, nil
		}
		if started || ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, &UnavailableError{What: n.describe(), Err: errors.Join(errs...)}
}

// describe names the namespaces n needs.
func (n nsNeed) describe() string {
	var parts []string
	if n.mount {
		parts = append(parts, "a mount namespace (to keep .git read-only)")
	}
	if n.net {
		parts = append(parts, "a network namespace (to cut the network)")
	}
	if n.pid {
		parts = append(parts, "a PID namespace (so nothing the command starts outlives it)")
	}
	if n.ipc {
		parts = append(parts, "an IPC namespace (to keep the host's SysV IPC out of reach)")
	}
	return strings.Join(parts, " and ")
}

// probe starts this binary as a probe helper with attr. started reports
// whether the process was created, that is whether the kernel accepted the
// namespaces; a started probe that does not answer means the binary lacks
// the [MaybeRunHelper] hook.
func probe(ctx context.Context, attr *syscall.SysProcAttr) (started bool, err error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, selfExe, probeArg)
	cmd.Dir = "/"
	cmd.Stdout = &out
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("clone with %s: %w", cloneFlagNames(attr.Cloneflags), err)
	}
	err = cmd.Wait()
	if err == nil && strings.TrimSpace(out.String()) == probeOK {
		return true, nil
	}
	if ctx.Err() != nil {
		return true, ctx.Err()
	}
	return true, fmt.Errorf("sandbox: %s does not run the sandbox helper (its main or TestMain must call sandbox.MaybeRunHelper first): %v", selfExe, err)
}

// cloneFlagNames spells the namespace flags in f.
func cloneFlagNames(f uintptr) string {
	var names []string
	for _, c := range []struct {
		flag uintptr
		name string
	}{
		{syscall.CLONE_NEWUSER, "CLONE_NEWUSER"},
		{syscall.CLONE_NEWNS, "CLONE_NEWNS"},
		{syscall.CLONE_NEWNET, "CLONE_NEWNET"},
		{syscall.CLONE_NEWPID, "CLONE_NEWPID"},
		{syscall.CLONE_NEWIPC, "CLONE_NEWIPC"},
	} {
		if f&c.flag != 0 {
			names = append(names, c.name)
		}
	}
	return strings.Join(names, "|")
}
