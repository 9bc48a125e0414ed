//go:build linux

package sandbox_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// exitErr returns the error of a real process that exited with code.
func exitErr(t *testing.T, code int) error {
	t.Helper()
	err := exec.Command("sh", "-c", "exit "+strconv.Itoa(code)).Run()
	if code != 0 && err == nil {
		t.Fatalf("sh exited 0; want %d", code)
	}
	return err
}

func TestDenied(t *testing.T) {
	t.Parallel()
	ro := sandbox.Policy{}
	net := sandbox.Policy{Mode: sandbox.WorkspaceWrite, NetworkAccess: true}
	full := sandbox.Policy{Mode: sandbox.DangerFullAccess}
	tests := []struct {
		name   string
		p      sandbox.Policy
		err    error
		output string
		want   bool
	}{
		{"write denied", ro, exitErr(t, 2), "sh: 1: cannot create f: Permission denied\n", true},
		{"EPERM", ro, exitErr(t, 1), "touch: Operation not permitted", true},
		{"read-only mount", ro, exitErr(t, 1), "rm: cannot remove '.git/HEAD': Read-only file system", true},
		{"network off", ro, exitErr(t, 6), "curl: (6) Could not resolve host: example.com", true},
		{"unreachable", ro, exitErr(t, 1), "connect: Network is unreachable", true},
		{"network on", net, exitErr(t, 6), "curl: (6) Could not resolve host: example.com", false},
		{"plain failure", ro, exitErr(t, 1), "FAIL: TestX", false},
		{"success", ro, nil, "permission denied", false},
		{"not found", ro, exitErr(t, 127), "sh: foo: Permission denied", false},
		{"not executable", ro, exitErr(t, 126), "permission denied", false},
		{"helper failed", ro, exitErr(t, sandbox.ExitHelperFailed), "agent sandbox: landlock: operation not permitted", false},
		{"status 125 of the command", ro, exitErr(t, sandbox.ExitHelperFailed), "Permission denied", true},
		{"full access", full, exitErr(t, 1), "Permission denied", false},
		{"not an exit", ro, context.Canceled, "Permission denied", false},
		{"start failure", ro, errors.New("fork/exec: permission denied"), "", false},
	}
	for _, tt := range tests {
		if got := sandbox.Denied(tt.p, tt.err, []byte(tt.output)); got != tt.want {
			t.Errorf("%s: Denied(%v, %q) = %v; want %v", tt.name, tt.err, tt.output, got, tt.want)
		}
	}
}
