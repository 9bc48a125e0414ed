package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// TestProbeSeam: Probe runs the checks it is given, and Enforces says what
// each mode then does, as Command would.
func TestProbeSeam(t *testing.T) {
	t.Parallel()
	var asked []string
	k := sandbox.Probe(context.Background(), sandbox.Probes{
		Landlock: func() (int, error) { return 0, errors.New("no landlock here") },
		Seccomp:  func() error { return nil },
		Namespaces: func(_ context.Context, mount, net bool) error {
			if mount {
				asked = append(asked, "mount")
				return errors.New("userns off")
			}
			asked = append(asked, "net")
			return nil
		},
	})
	if k.Landlock == nil || k.Seccomp != nil || k.MountNS == nil || k.NetNS != nil || strings.Join(asked, ",") != "mount,net" {
		t.Fatalf("kernel %+v, asked %v", k, asked)
	}
	tests := []struct {
		mode sandbox.Mode
		best bool
		ok   bool
		want string
	}{
		{sandbox.ReadOnly, false, false, "refuses commands: no Landlock and a mount namespace ("},
		{sandbox.WorkspaceWrite, false, false, "refuses commands: no Landlock and a mount namespace"},
		{sandbox.WorkspaceWrite, true, true, "best effort: runs commands without Landlock and a mount namespace"},
		{sandbox.DangerFullAccess, false, true, "runs commands unsandboxed"},
	}
	for _, tt := range tests {
		ok, what := k.Enforces(tt.mode, tt.best)
		if ok != tt.ok || !strings.HasPrefix(what, tt.want) {
			t.Errorf("Enforces(%s, %v) = %v, %q; want %v, %q…", tt.mode, tt.best, ok, what, tt.ok, tt.want)
		}
	}
	full := sandbox.Kernel{LandlockABI: 5}
	if ok, what := full.Enforces(sandbox.ReadOnly, false); !ok || what != "enforced (Landlock ABI 5, namespaces, seccomp)" {
		t.Errorf("full kernel: %v %q", ok, what)
	}
}
