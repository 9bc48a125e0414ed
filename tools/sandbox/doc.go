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
// A restricted mode is enforced by up to four layers, all applied by the
// helper before it execs the command:
//
//   - Landlock: the whole filesystem is readable and executable; only the
//     writable roots (workspace-write) and a few devices such as /dev/null
//     are writable. With the network off, TCP bind and connect are denied
//     (Landlock ABI 4+) and abstract UNIX sockets outside the sandbox
//     cannot be reached (ABI 6+). Signals to processes outside the sandbox
//     are denied (ABI 6+). no_new_privs is set, so setuid binaries gain
//     nothing.
//   - A private mount namespace that bind-mounts <root>/.git, and the
//     target of a "gitdir:" file, read-only inside each writable root.
//     Landlock alone cannot do this: its rights only grow downwards.
//   - A network namespace with no interfaces when the network is off, so
//     UDP, DNS, Multipath TCP and raw sockets fail too.
//   - For root: the capability bounding set keeps only the file-ownership
//     and identity capabilities (chown, dac_override, fowner, fsetid, kill,
//     setuid, setgid, net_bind_service, sys_chroot, audit_write, ipc_lock
//     and, with the network on, net_raw).
//
// Namespaces are created with clone flags when the helper starts (a user
// namespace is added for non-root callers) and probed first, so a kernel
// that forbids them is detected before the command runs.
//
// # Invariants
//
//   - A policy the kernel cannot fully enforce is refused with an error
//     matching [ErrUnavailable], unless [Policy.BestEffort] asks to run
//     with whatever can be enforced, which may be nothing.
//   - The helper never returns to the caller's code: it execs the command
//     or exits with [ExitHelperFailed] after printing "agent sandbox: ..."
//     on standard error.
//   - The command's pid, stdio, working directory and environment are the
//     ones the caller sets on the returned *exec.Cmd.
//
// # Limits
//
//   - Landlock (ABI 7 and below) does not govern metadata: chmod, chown,
//     utimes and extended attributes still work on files the process
//     owns anywhere. Truncation via truncate(2) is only governed from ABI
//     3, renames across directories need ABI 2.
//   - Only the top-level .git of each writable root is protected; a
//     repository nested deeper, or a .git created inside the sandbox, is
//     writable like the rest of the root.
//   - Without a network namespace (best effort only), Landlock blocks TCP
//     but not UDP, Multipath TCP or raw sockets.
//   - [Denied] is a heuristic over exit status and output, as in Codex.
package sandbox
