package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// Arguments that mark a process as the helper; see [MaybeRunHelper]. They
// look like flags so that a binary lacking the hook rejects them (a Go test
// binary says "flag provided but not defined", cobra "unknown flag")
// instead of doing its normal work.
const (
	helperArg = "--agent-sandbox-helper"
	probeArg  = "--agent-sandbox-probe"
)

// selfExe is the binary the helper runs from.
const selfExe = "/proc/self/exe"

// spec is what the helper enforces, passed to it as JSON in argv.
type spec struct {
	// ABI is the Landlock ABI to use; 0 means no Landlock.
	ABI int `json:"abi"`
	// Writable are the writable hierarchies.
	Writable []string `json:"writable,omitempty"`
	// ReadOnlyRoot makes every mount read-only in the helper's mount
	// namespace but the Writable hierarchies, so that nothing else
	// changes, metadata (mode, owner, times, extended attributes)
	// included, whatever the command's capabilities.
	ReadOnlyRoot bool `json:"read_only_root,omitempty"`
	// ReadOnly are bind-mounted read-only in the helper's mount namespace,
	// over the writable hierarchies.
	ReadOnly []string `json:"read_only,omitempty"`
	// Hidden get an empty read-only tmpfs mounted over them in the
	// helper's mount namespace, after the other mounts.
	Hidden []string `json:"hidden,omitempty"`
	// Seccomp loads the filter of [seccompFilter].
	Seccomp bool `json:"seccomp,omitempty"`
	// NoNetwork cuts TCP and abstract UNIX sockets with Landlock and
	// keeps CAP_NET_RAW out of root's bounding set.
	NoNetwork bool `json:"no_network,omitempty"`
	// PrivatePts mounts a new devpts instance over /dev/pts in the
	// helper's mount namespace, so the command sees no terminal but the
	// ones it opens itself through /dev/ptmx (and any it was given as a
	// standard stream): not agent's, not the user's other terminals.
	PrivatePts bool `json:"private_pts,omitempty"`
	// NewPID says the helper is pid 1 of a new PID namespace: it mounts
	// a /proc of that namespace, runs the command as its child and exits
	// with it, and the kernel then kills every process left in the
	// namespace, however it was detached (setsid, double fork).
	NewPID bool `json:"new_pid,omitempty"`
	// HostNS maps a namespace kind ("mnt", "net") the helper must not
	// share with its parent to the parent's namespace inode.
	HostNS map[string]uint64 `json:"host_ns,omitempty"`
}

// sandboxedCommand builds the helper command for a restricted policy whose
// Mode and Workspace are resolved.
func sandboxedCommand(ctx context.Context, p Policy, name string, args []string) (*exec.Cmd, error) {
	var s spec
	abi, err := Available()
	switch {
	case err == nil:
		s.ABI = abi
	case !p.BestEffort:
		return nil, err
	}
	switch err := seccompAvailable(); {
	case err == nil:
		s.Seccomp = true
	case !p.BestEffort:
		return nil, &UnavailableError{What: "seccomp (to keep commands off the terminal and the network)", Err: err}
	}
	if s.Writable, err = writableRoots(p); err != nil {
		return nil, err
	}
	extra := make([]string, len(p.ReadOnlyPaths))
	for i, r := range p.ReadOnlyPaths {
		if !filepath.IsAbs(r) {
			r = filepath.Join(p.Workspace, r)
		}
		extra[i] = r
	}
	if s.ReadOnly, err = protectedPaths(s.Writable, extra); err != nil {
		return nil, err
	}
	if s.Hidden, err = hiddenPaths(p); err != nil {
		return nil, err
	}
	if err := checkLinks(append(slices.Clone(s.Hidden), extra...), s.Writable); err != nil {
		return nil, err
	}
	s.ReadOnlyRoot = !slices.Contains(s.Writable, "/")
	if err := mountAPIAvailable(); err != nil && s.ReadOnlyRoot {
		if !p.BestEffort {
			return nil, &UnavailableError{What: "the new mount API (to keep everything but the writable roots read-only)", Err: err}
		}
		s.ReadOnlyRoot = false
	}
	s.NoNetwork = p.networkOff()
	// Every restricted mode needs the mount namespace, if only for a
	// devpts of its own: Landlock lets commands open the devices under
	// /dev/pts, and without it they would reach every terminal by path.
	need := nsNeed{mount: true, net: s.NoNetwork, pid: true, ipc: true}
	s.PrivatePts, s.NewPID = true, true
	attr, err := namespaces(ctx, need)
	if err != nil {
		var ue *UnavailableError
		if !p.BestEffort || !errors.As(err, &ue) {
			return nil, err
		}
		// Best effort: go on with Landlock and seccomp alone.
		s.ReadOnlyRoot, s.ReadOnly, s.Hidden, s.PrivatePts, s.NewPID, need = false, nil, nil, false, false, nsNeed{}
	}
	if s.HostNS, err = hostNamespaces(need); err != nil {
		return nil, err
	}
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	// A new session has no controlling terminal: the command cannot open
	// /dev/tty, and the terminal's signals and job control do not reach it.
	attr.Setsid = true
	if s.NewPID {
		// Should agent die without killing it, the helper (and with it
		// the namespace) goes too.
		attr.Pdeathsig = syscall.SIGKILL
	}
	if s.ABI == 0 && !s.Seccomp && need == (nsNeed{}) {
		// Best effort, and nothing to enforce but the session.
		cmd := plainCommand(ctx, p.Workspace, name, args)
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setsid = true
		return cmd, nil
	}
	js, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd := exec.CommandContext(ctx, selfExe, append([]string{helperArg, string(js), name}, args...)...)
	cmd.Dir = p.Workspace
	cmd.SysProcAttr = attr
	return cmd, nil
}

// hiddenPaths returns p.HiddenPaths that exist, absolute with symlinks
// resolved, but those holding the workspace.
func hiddenPaths(p Policy) ([]string, error) {
	var out []string
	for _, h := range p.HiddenPaths {
		if !filepath.IsAbs(h) {
			h = filepath.Join(p.Workspace, h)
		}
		real, err := filepath.EvalSymlinks(h)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("sandbox: hidden path: %w", err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() || within(p.Workspace, []string{real}) {
			continue
		}
		out = append(out, real)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// mountAPIAvailable reports whether the kernel has open_tree, move_mount
// and mount_setattr (Linux 5.12), which the helper needs to make every
// mount read-only but the writable roots. Invalid arguments tell without
// changing anything: only a kernel without the call says ENOSYS.
func mountAPIAvailable() error {
	err := unix.MountSetattr(-1, "", 0, &unix.MountAttr{})
	if errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("mount_setattr: %w (needs Linux 5.12)", err)
	}
	return nil
}

// writableRoots returns the writable hierarchies of p, absolute with
// symlinks resolved: none unless p is [WorkspaceWrite]; then the
// workspace, p.WritableRoots, $TMPDIR and /tmp, the last two unless
// excluded or missing.
func writableRoots(p Policy) ([]string, error) {
	if p.Mode != WorkspaceWrite {
		return nil, nil
	}
	roots := []string{p.Workspace}
	for _, r := range p.WritableRoots {
		if !filepath.IsAbs(r) {
			r = filepath.Join(p.Workspace, r)
		}
		real, err := realDir(r)
		if err != nil {
			return nil, fmt.Errorf("sandbox: writable root: %w", err)
		}
		roots = append(roots, real)
	}
	var tmps []string
	if t := os.Getenv("TMPDIR"); t != "" && !p.ExcludeTmpdirEnvVar {
		tmps = append(tmps, t)
	}
	if !p.ExcludeSlashTmp {
		tmps = append(tmps, "/tmp")
	}
	for _, t := range tmps {
		if real, err := realDir(t); err == nil {
			roots = append(roots, real)
		}
	}
	return roots, nil
}

// hostNamespaces returns the inodes of the caller's namespaces that need
// says the helper must leave.
func hostNamespaces(need nsNeed) (map[string]uint64, error) {
	var kinds []string
	if need.mount {
		kinds = append(kinds, "mnt")
	}
	if need.net {
		kinds = append(kinds, "net")
	}
	if need.pid {
		kinds = append(kinds, "pid")
	}
	if need.ipc {
		kinds = append(kinds, "ipc")
	}
	if len(kinds) == 0 {
		return nil, nil
	}
	m := make(map[string]uint64, len(kinds))
	for _, k := range kinds {
		ino, err := nsInode(k)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		m[k] = ino
	}
	return m, nil
}

// nsInode returns the inode of the calling process's namespace of kind k.
func nsInode(k string) (uint64, error) {
	fi, err := os.Stat("/proc/self/ns/" + k)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("stat %s namespace: no inode", k)
	}
	return st.Ino, nil
}

// killedBySeccomp reports whether a seccomp filter killed the process
// (SIGSYS), or the command of a helper that is pid 1 of its namespace,
// which exits 128+SIGSYS then since it cannot die of the signal itself.
func killedBySeccomp(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && (ws.Signaled() && ws.Signal() == syscall.SIGSYS || ws.Exited() && ws.ExitStatus() == 128+int(syscall.SIGSYS))
}
