//go:build linux

package sandbox_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentcli/agent/tools/sandbox"
)

// unprivilegedEnv marks a run of this test binary as the unprivileged
// user, started by TestMetadataUnprivileged.
const unprivilegedEnv = "SANDBOX_TEST_UNPRIVILEGED"

// meta is what the metadata attacks try to change.
type meta struct {
	mode     os.FileMode
	uid, gid uint32
	mtime    time.Time
	xattr    bool
}

// statMeta reads the metadata of path.
func statMeta(t *testing.T, path string) meta {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	_, xerr := unix.Getxattr(path, "user.agent-test", nil)
	return meta{mode: fi.Mode(), uid: st.Uid, gid: st.Gid, mtime: fi.ModTime(), xattr: xerr == nil}
}

// metadataAttacks run on the file "$F": as the attack on agent did, make
// it world-writable and setuid, give it away, backdate it and tag it.
// Each runs alone so that one failure does not hide another's success.
func metadataAttacks(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	owner := "65534:65534" // nobody; root gives the file away
	if os.Geteuid() != 0 {
		owner = strconv.Itoa(os.Geteuid()) + ":" + strconv.Itoa(os.Getegid()) // a no-op chown
	}
	return []string{
		`chmod 4777 "$F"`,
		`chown ` + owner + ` "$F"`,
		`touch -d 2001-02-03 "$F"`,
		xattrEnv + `="$F" ` + exe,
	}
}

// metadataCase runs every attack on a fresh file in dir under p and
// checks that the file's metadata changed (changes) or stayed as it was.
func metadataCase(t *testing.T, p sandbox.Policy, dir string, changes bool) {
	t.Helper()
	for _, attack := range metadataAttacks(t) {
		f := filepath.Join(dir, "victim")
		os.Remove(f)
		if err := os.WriteFile(f, []byte("secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		before := statMeta(t, f)
		cmd := command(t, p, "sh", "-c", attack)
		cmd.Env = append(os.Environ(), "F="+f)
		out, err := cmd.CombinedOutput()
		after := statMeta(t, f)
		if changes {
			mustSucceed(t, string(out), err)
			noop := os.Geteuid() != 0 && strings.HasPrefix(attack, "chown")
			if after == before && !noop {
				t.Errorf("%s inside a writable root changed nothing: %+v", attack, after)
			}
			continue
		}
		mustFail(t, p, string(out), err)
		if after != before {
			t.Errorf("%s outside the writable roots changed %+v to %+v", attack, before, after)
		}
		t.Logf("%s: %s", attack, strings.TrimSpace(string(out)))
	}
}

func testMetadata(t *testing.T) {
	t.Run("read-only", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		metadataCase(t, sandbox.Policy{Workspace: ws}, ws, false)
	})
	t.Run("outside workspace-write roots", func(t *testing.T) {
		t.Parallel()
		ws, other := t.TempDir(), t.TempDir()
		metadataCase(t, strict(ws), other, false)
	})
	t.Run("inside workspace-write root", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		metadataCase(t, strict(ws), ws, true)
	})
}

// TestMetadata checks that outside the writable roots no file's mode,
// owner, times or extended attributes change, whoever runs the sandbox:
// as root the command keeps CAP_CHOWN and CAP_FOWNER, which Landlock does
// not govern.
func TestMetadata(t *testing.T) {
	t.Parallel()
	testMetadata(t)
}

// unprivilegedTests are the attack tests TestAttacksUnprivileged runs
// again as nobody.
const unprivilegedTests = "^(TestMetadata|TestTerminalInjection|TestNetworkUnixSockets|TestReadOnlyPathsInsideWritableRoot)$"

// TestAttacksUnprivileged runs the attack tests again as nobody, from a
// copy of this test binary that nobody can execute, so that they hold for
// a user without capabilities, sandboxed through a user namespace, too.
func TestAttacksUnprivileged(t *testing.T) {
	t.Parallel()
	if os.Getenv(unprivilegedEnv) != "" {
		return // this is the run as nobody
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: the attack tests already ran unprivileged")
	}
	requireLandlock(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "sandbox-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copyExe := filepath.Join(dir, "sandbox.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyExe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), copyExe, "-test.run="+unprivilegedTests, "-test.v")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1", "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run as nobody: %v", err)
	}
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("the attack tests failed as nobody: %v", err)
	}
	for _, name := range []string{
		"TestMetadata/inside_workspace-write_root", "TestTerminalInjection/read-only",
		"TestNetworkUnixSockets", "TestReadOnlyPathsInsideWritableRoot/home_in_the_workspace",
	} {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass as nobody (skipped? see the log)", name)
		}
	}
}
