package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// MaybeRunHelper turns this process into the sandbox helper when
// [Command] started it as one, and returns at once otherwise. As the
// helper it never returns: it applies the policy and execs the command, or
// prints why it could not on standard error and exits with
// [ExitHelperFailed] (126 or 127 when the command cannot be executed or
// found, as in a shell).
//
// Call it first in main, before any goroutine starts, and first in the
// TestMain of any test binary that runs sandboxed commands:
//
//	func main() {
//		sandbox.MaybeRunHelper()
//		...
//	}
func MaybeRunHelper() {
	if len(os.Args) < 2 {
		return
	}
	// syscall.Exit, not os.Exit: there is nothing to flush, and under the
	// race detector os.Exit would wait a second (GORACE atexit_sleep_ms)
	// on every probe.
	switch os.Args[1] {
	case probeArg:
		fmt.Println(probeOK)
		syscall.Exit(0)
	case helperArg:
		syscall.Exit(runHelper(os.Args[2:], os.Stderr))
	case guardArg:
		syscall.Exit(runGuard(os.Args[2:], os.Stderr))
	}
}

// runHelper enforces the spec in args[0] and execs args[1:]. It returns
// only on failure, with the exit status to use.
func runHelper(args []string, stderr io.Writer) int {
	// Capabilities and the exec below are per thread; keep both on this
	// one. It is never unlocked: the process either execs or exits.
	runtime.LockOSThread()
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "%s%v\n", helperPrefix, err)
		return code
	}
	if len(args) < 2 {
		return fail(ExitHelperFailed, errors.New("usage: SPEC COMMAND [ARG...]"))
	}
	var s spec
	if err := json.Unmarshal([]byte(args[0]), &s); err != nil {
		return fail(ExitHelperFailed, fmt.Errorf("bad spec: %w", err))
	}
	if err := enforce(s); err != nil {
		return fail(ExitHelperFailed, err)
	}
	name, argv := args[1], args[1:]
	path, err := exec.LookPath(name)
	if err != nil {
		return fail(127, err)
	}
	if s.NewPID {
		code, err := runAsInit(path, argv)
		if err != nil {
			return fail(code, fmt.Errorf("exec %s: %w", name, err))
		}
		return code
	}
	err = syscall.Exec(path, argv, os.Environ())
	code := 126
	if errors.Is(err, syscall.ENOENT) {
		code = 127
	}
	return fail(code, fmt.Errorf("exec %s: %w", name, err))
}

// enforce applies every layer of s to the calling thread, and Landlock to
// the whole process.
func enforce(s spec) error {
	for kind, host := range s.HostNS {
		ino, err := nsInode(kind)
		if err != nil {
			return err
		}
		if ino == host {
			return fmt.Errorf("not in a new %s namespace (was the command's SysProcAttr replaced?)", kind)
		}
	}
	if sid, err := unix.Getsid(0); err != nil || sid != unix.Getpid() {
		return fmt.Errorf("not in a new session, so the command would keep the terminal (was the command's SysProcAttr replaced?)")
	}
	mounts := s.ReadOnlyRoot || len(s.ReadOnly) > 0 || len(s.Hidden) > 0 || s.PrivatePts || s.NewPID
	if mounts {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("make mounts private: %w", err)
		}
	}
	if s.ReadOnlyRoot {
		if err := mountRootReadOnly(s.Writable); err != nil {
			return err
		}
	}
	if len(s.ReadOnly) > 0 {
		if err := mountReadOnly(s.ReadOnly); err != nil {
			return err
		}
	}
	for _, h := range s.Hidden {
		if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return fmt.Errorf("hide %s: %w", h, err)
		}
	}
	if s.PrivatePts {
		if err := mountPrivatePts(); err != nil {
			return err
		}
	}
	if s.NewPID {
		if err := mountProc(s.ReadOnlyRoot); err != nil {
			return err
		}
	}
	if mounts {
		// The working directory still points into the mounts underneath;
		// enter it again through the new ones.
		wd, err := os.Getwd()
		if err == nil {
			err = os.Chdir(wd)
		}
		if err != nil {
			return fmt.Errorf("re-enter the working directory: %w", err)
		}
	}
	if err := dropCapabilities(s.NoNetwork); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if s.ABI > 0 {
		if err := restrict(s); err != nil {
			return err
		}
	}
	if s.Seccomp {
		return loadSeccomp(s.NoNetwork)
	}
	return nil
}

// mountRootReadOnly makes every mount of the helper's (private) mount
// namespace read-only except the writable hierarchies, which keep the
// flags they had: a copy of each is taken first, the whole tree is made
// read-only, and the copies are mounted back on top, parents first.
// Writes and metadata changes (chmod, chown, utimes, xattrs) outside them
// then fail with EROFS even for root; device nodes stay usable.
func mountRootReadOnly(writable []string) error {
	roots := slices.Clone(writable)
	slices.SortFunc(roots, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	fds := make([]int, len(roots))
	for i, r := range roots {
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("copy the mounts of %s: %w", r, err)
		}
		defer unix.Close(fd)
		fds[i] = fd
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("make / read-only: %w", err)
	}
	for i, r := range roots {
		if err := unix.MoveMount(fds[i], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("mount %s writable: %w", r, err)
		}
	}
	return nil
}

// mountReadOnly bind-mounts each path read-only onto itself, in the
// helper's own mount namespace, whose mounts must be private so nothing
// propagates back to the host. The remount keeps the nosuid, nodev, noexec
// and atime flags of the underlying mount, which a user namespace may not
// clear.
func mountReadOnly(paths []string) error {
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("statfs %s: %w", p, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		for _, f := range []struct{ st, ms uintptr }{
			{unix.ST_NOSUID, unix.MS_NOSUID},
			{unix.ST_NODEV, unix.MS_NODEV},
			{unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME},
			{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
			{unix.ST_RELATIME, unix.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f.st != 0 {
				flags |= f.ms
			}
		}
		if err := unix.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", p, err)
		}
	}
	return nil
}

// mountPrivatePts mounts a new devpts instance over /dev/pts (when there
// is one) in the helper's private mount namespace. /dev/ptmx then
// allocates terminals in it, since the kernel finds the instance through
// the pts directory next to ptmx, and no terminal outside the sandbox,
// agent's or the user's, has a name the command could open.
func mountPrivatePts() error {
	fi, err := os.Stat("/dev/pts")
	if err != nil || !fi.IsDir() {
		return nil
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount a private devpts on /dev/pts: %w", err)
	}
	return nil
}

// mountProc mounts the proc of the helper's PID namespace over /proc, so
// that the command sees its own processes alone (and ps works), read-only
// when everything else is.
func mountProc(readOnly bool) error {
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if readOnly {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount("proc", "/proc", "proc", flags, ""); err != nil {
		return fmt.Errorf("mount the PID namespace's /proc: %w", err)
	}
	return nil
}

// keptCapabilities are the capabilities root keeps in a sandbox: those for
// owning and changing files and identities, never those for the kernel,
// devices, mounts or (with the network off) raw packets.
func keptCapabilities(noNetwork bool) []int {
	caps := []int{
		unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID,
		unix.CAP_KILL, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_NET_BIND_SERVICE,
		unix.CAP_SYS_CHROOT, unix.CAP_AUDIT_WRITE, unix.CAP_IPC_LOCK,
	}
	if !noNetwork {
		caps = append(caps, unix.CAP_NET_RAW)
	}
	return caps
}

// dropCapabilities removes every other capability from the calling
// thread's bounding set and clears its inheritable and ambient sets, so that the exec'd
// command, even as root, gets at most [keptCapabilities]. Without
// CAP_SETPCAP (any non-root caller outside a user namespace) there is
// nothing to drop: such a caller has no capabilities to pass on.
func dropCapabilities(noNetwork bool) error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	// Root's inheritable set would otherwise carry capabilities past the
	// bounding set into the command.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Inheritable|data[1].Inheritable != 0 {
		data[0].Inheritable, data[1].Inheritable = 0, 0
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("clear inheritable capabilities: %w", err)
		}
	}
	keep := map[int]bool{}
	for _, c := range keptCapabilities(noNetwork) {
		keep[c] = true
	}
	for c := 0; c < 64; c++ {
		if keep[c] {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		switch {
		case errors.Is(err, unix.EINVAL):
			return nil // past the kernel's last capability
		case errors.Is(err, unix.EPERM):
			return nil // no CAP_SETPCAP: nothing to pass on
		case err != nil:
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}
