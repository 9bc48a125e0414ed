package sandbox

import "context"

// seccompProbe is the real seccomp check.
func seccompProbe() error { return seccompAvailable() }

// namespaceProbe is the real namespace check: it starts a probe helper.
func namespaceProbe(ctx context.Context, mount, net bool) error {
	_, err := namespaces(ctx, nsNeed{mount: mount, net: net, pid: mount, ipc: mount})
	return err
}
