//go:build linux

package sandbox_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentcli/agent/tools/sandbox"
)

// hostIPC creates a SysV shared memory segment and message queue under
// random keys and a key in the user's keyring, removed at the end of the
// test, and returns them as [ipcEnv] spells them.
func hostIPC(t *testing.T) string {
	t.Helper()
	shmKey, msgKey := int(rand.Int32N(1<<30))+1, int(rand.Int32N(1<<30))+1
	shm, err := unix.SysvShmGet(shmKey, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Skipf("no SysV shared memory: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(shm, unix.IPC_RMID, nil) })
	msq, _, e := unix.Syscall(unix.SYS_MSGGET, uintptr(msgKey), unix.IPC_CREAT|unix.IPC_EXCL|0o600, 0)
	if e != 0 {
		t.Skipf("no SysV message queues: %v", e)
	}
	t.Cleanup(func() { unix.Syscall(unix.SYS_MSGCTL, msq, unix.IPC_RMID, 0) })
	key, err := unix.AddKey("user", fmt.Sprintf("agent-test-%d", shmKey), []byte("secret"), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("no keyring: %v", err)
	}
	t.Cleanup(func() {
		unix.KeyctlInt(unix.KEYCTL_REVOKE, key, 0, 0, 0)
		unix.KeyctlInt(unix.KEYCTL_UNLINK, key, unix.KEY_SPEC_USER_KEYRING, 0, 0)
	})
	return fmt.Sprintf("%d %d %d", shmKey, msgKey, key)
}

// TestHostIPC checks that a sandboxed command reaches neither the host's
// SysV IPC objects (a namespace of its own) nor any keyring (keyctl,
// add_key and request_key refused), while the same attempts work outside
// the sandbox.
func TestHostIPC(t *testing.T) {
	t.Parallel()
	ids := hostIPC(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(p sandbox.Policy) string {
		cmd := command(t, p, exe)
		cmd.Env = append(os.Environ(), ipcEnv+"="+ids)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return string(out)
	}
	out := run(sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: t.TempDir()})
	for _, want := range []string{"shm: ok\n", "msg: ok\n", "keyctl read: ok\n", "add_key: ok\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("unsandboxed, the host's IPC is out of reach (want %q):\n%s", want, out)
		}
	}
	for _, mode := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		out := run(sandbox.Policy{Mode: mode, Workspace: t.TempDir()})
		for _, want := range []string{
			"shm: no such file or directory\n",
			"msg: no such file or directory\n",
			"keyctl read: operation not permitted\n",
			"add_key: operation not permitted\n",
			"request_key: operation not permitted\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q", mode, want)
			}
		}
		if t.Failed() {
			t.Logf("%s: output:\n%s", mode, out)
		}
	}
}
