package sandbox

import (
	"context"
	"fmt"
)

// Kernel is what this system offers the sandbox, as [Probe] found it.
type Kernel struct {
	// LandlockABI is the Landlock ABI in use (0 when Landlock is
	// unavailable, and Landlock says why).
	LandlockABI int
	Landlock    error
	// Seccomp is nil when the seccomp filter can be loaded.
	Seccomp error
	// MountNS and NetNS are nil when the helper can be started in a new
	// mount (network) namespace.
	MountNS, NetNS error
}

// Probes are the checks [Probe] runs. A nil field runs the real check on
// this kernel; tests set fields to simulate another kernel.
type Probes struct {
	// Landlock returns the ABI, as [Available].
	Landlock func() (int, error)
	// Seccomp reports whether the filter can be loaded.
	Seccomp func() error
	// Namespaces reports whether the helper starts in a new mount
	// namespace (mount) or network namespace (net).
	Namespaces func(ctx context.Context, mount, net bool) error
}

// Probe checks what the kernel offers the sandbox, through pr's checks
// (the real ones where nil). The namespace checks start this binary as a
// probe helper, so its main must call [MaybeRunHelper].
func Probe(ctx context.Context, pr Probes) Kernel {
	if pr.Landlock == nil {
		pr.Landlock = Available
	}
	if pr.Seccomp == nil {
		pr.Seccomp = seccompProbe
	}
	if pr.Namespaces == nil {
		pr.Namespaces = namespaceProbe
	}
	var k Kernel
	k.LandlockABI, k.Landlock = pr.Landlock()
	k.Seccomp = pr.Seccomp()
	k.MountNS = pr.Namespaces(ctx, true, false)
	k.NetNS = pr.Namespaces(ctx, false, true)
	return k
}

// Enforces says what a command under mode gets on k: whether it runs at
// all (ok), and in words what is enforced or why the command is refused.
// It follows [Command]: a restricted mode needs Landlock and seccomp, and
// the namespaces, unless bestEffort, which runs with what there is.
func (k Kernel) Enforces(mode Mode, bestEffort bool) (ok bool, what string) {
	if mode == DangerFullAccess {
		return true, "runs commands unsandboxed"
	}
	var missing []string
	if k.Landlock != nil {
		missing = append(missing, "Landlock")
	}
	if k.Seccomp != nil {
		missing = append(missing, "seccomp")
	}
	if k.MountNS != nil {
		// Both restricted modes mount everything read-only but the
		// writable roots, so that metadata cannot change either.
		missing = append(missing, "a mount namespace")
	}
	if k.NetNS != nil {
		missing = append(missing, "a network namespace")
	}
	switch {
	case len(missing) == 0:
		return true, fmt.Sprintf("enforced (Landlock ABI %d, namespaces, seccomp)", k.LandlockABI)
	case bestEffort:
		return true, fmt.Sprintf("best effort: runs commands without %s", join(missing))
	}
	return false, fmt.Sprintf("refuses commands: no %s (sandbox_fallback = \"best-effort\" runs them with what the kernel enforces)", join(missing))
}

// join is "a", "a and b", "a, b and c".
func join(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}
