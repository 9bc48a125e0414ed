// Package sandbox runs commands under the agent's sandbox modes: read-only,
// workspace-write and danger-full-access (see [Mode]). It enforces them on
// Linux; elsewhere every restricted mode is unavailable.
//
// Start with [Command]: it returns an *exec.Cmd that re-executes the current
// binary (/proc/self/exe) as a small helper. The helper locks itself down
// and then execs the real command, which inherits the restrictions. The
// binary's main, and the TestMain of every test binary that starts
// sandboxed commands, must therefore call [MaybeRunHelper] before anything
// else. [Available] reports whether the kernel can sandbox at all, and
// [Denied] tells whether a failed command was probably stopped by the
// sandbox.
//
// # Layers
//
// A restricted mode is enforced by these layers, all applied by the
// helper before it execs the command:
//
//   - A new session (setsid): the command has no controlling terminal, so
//     /dev/tty cannot be opened and the terminal's signals and job
//     control do not reach it.
//   - Landlock: the whole filesystem is readable and executable; only the
//     writable roots (workspace-write) and a few devices such as /dev/null
//     and the terminals of the private devpts below are writable. With the network off, TCP bind and connect are denied
//     (Landlock ABI 4+) and abstract UNIX sockets outside the sandbox
//     cannot be reached (ABI 6+). Signals to processes outside the sandbox
//     are denied (ABI 6+). no_new_privs is set, so setuid binaries gain
//     nothing.
//   - A private mount namespace in which every mount is read-only but the
//     writable roots, so that outside them nothing changes, metadata
//     (mode, owner, times, extended attributes) included, even for root;
//     and in which <root>/.git, the target of a "gitdir:" file and each
//     of [Policy.ReadOnlyPaths] (the agent's home) are bind-mounted
//     read-only inside the writable roots; an empty read-only tmpfs
//     hides each of [Policy.HiddenPaths] (the agent's home again, so
//     its credentials, sessions and locks are out of reach); and a new devpts instance is
//     mounted over /dev/pts, so the command can open no terminal by path
//     (agent's or the user's others) but the ones it creates through
//     /dev/ptmx. Landlock alone can do neither:
//     it does not govern metadata, and its rights only grow downwards.
//   - A PID namespace whose pid 1 is the helper, with a /proc of its own:
//     the helper runs the command as its child, forwards signals to it,
//     reaps orphans and exits with the command's status (128+N when
//     signal N killed it); the kernel then kills every process left in
//     the namespace, so nothing the command starts, detached with setsid
//     or a double fork, outlives it. Killing the helper (as the context
//     does) or agent's death (the helper's parent-death signal) ends them
//     all too.
//   - An IPC namespace, so the host's SysV shared memory, semaphores and
//     message queues (and POSIX message queues) are out of reach.
//   - A network namespace with no interfaces when the network is off, so
//     UDP, DNS, Multipath TCP and raw sockets fail too.
//   - A seccomp filter: ioctl TIOCSTI and TIOCLINUX (pushing input into a
//     terminal), io_uring and the keyring calls (keyctl, add_key,
//     request_key) fail with EPERM; with the network off so do
//     socket() for every family but AF_INET, AF_INET6 and AF_NETLINK
//     (which the namespace confines) and datagram socketpair(), so no UNIX
//     socket, pathname or abstract, can be reached; system calls of
//     another ABI (32-bit, x32) kill the process.
//   - For root: the capability bounding set keeps only the file-ownership
//     and identity capabilities (chown, dac_override, fowner, fsetid, kill,
//     setuid, setgid, net_bind_service, sys_chroot, audit_write, ipc_lock
//     and, with the network on, net_raw); without sys_admin the command
//     cannot undo the mounts.
//
// Namespaces are created with clone flags when the helper starts (a user
// namespace is added for non-root callers) and probed first, so a kernel
// that forbids them is detected before the command runs.
//
// # Unsandboxed commands
//
// Under [DangerFullAccess] (and best effort with nothing to enforce) the
// command on Linux re-executes the binary as a guard instead: a child
// subreaper that runs the command as its child in the guard's (the
// caller's) session and process group, passes on the signals sent to it (not those a terminal
// sent the group, which the command got already) and exits as the command
// did. Its parent-death signal and the command's Cancel make it kill every
// descendant it has, adopted orphans included, so nothing the command
// started outlives agent's death or the command's cancellation. A command
// that exits leaves what it started running.
//
// # Invariants
//
//   - A policy the kernel cannot fully enforce is refused with an error
//     matching [ErrUnavailable], unless [Policy.BestEffort] asks to run
//     with whatever can be enforced, which may be only the new session.
//   - The helper never returns to the caller's code: it runs the command
//     (as pid 1 of its PID namespace, or by exec without one) or exits
//     with [ExitHelperFailed] after printing "agent sandbox: ..." on
//     standard error. It refuses to run outside the namespaces and the
//     new session Command asked for.
//   - The command's stdio, working directory and environment are the ones
//     the caller sets on the returned *exec.Cmd; its pid is the helper's
//     when there is no PID namespace, else the helper's child's.
//
// # Limits
//
//   - Inside the writable roots the command may change metadata too, as
//     the owner (or root) could: chmod, including setuid bits, chown,
//     utimes and extended attributes.
//   - Only the top-level .git of each writable root is protected; a
//     repository nested deeper, or a .git created inside the sandbox, is
//     writable like the rest of the root.
//   - Without a mount namespace (best effort only), metadata outside the
//     writable roots is not protected and .git and the agent's home are
//     writable inside them. Without a network namespace, Landlock blocks
//     TCP but not UDP or Multipath TCP; seccomp still blocks UNIX
//     sockets.
//   - The command may still write to a terminal it was given as standard
//     output (escape sequences included); it cannot push input into it.
//   - [Denied] is a heuristic over exit status and output, as in Codex.
package sandbox
