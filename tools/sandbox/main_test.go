//go:build linux

package sandbox_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/tools/sandbox"
)

// dialEnv makes the test binary, started inside a sandbox, dial the
// "NETWORK ADDRESS" it holds and exit 0 on success, 1 on failure.
const dialEnv = "SANDBOX_TEST_DIAL"

// TestMain lets this test binary serve as the sandbox helper and as a
// network client inside sandboxes, then fails the package if a goroutine
// outlives its test.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if target := os.Getenv(dialEnv); target != "" {
		syscall.Exit(dial(target)) // os.Exit would sleep a second under -race
	}
	goleak.VerifyTestMain(m)
}

// dial connects to target ("tcp 127.0.0.1:80") and reports the outcome.
func dial(target string) int {
	network, addr, _ := strings.Cut(target, " ")
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err == nil && network == "udp" {
		_, err = c.Write([]byte("x"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c.Close()
	fmt.Println("connected")
	return 0
}

// requireLandlock skips the test when the kernel has no Landlock, saying
// why, and returns the ABI version otherwise.
func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := sandbox.Available()
	if err != nil {
		t.Skipf("no Landlock on this kernel: %v", err)
	}
	return abi
}

// command returns a sandboxed command for p, skipping the test (with the
// kernel's reason) when Landlock or a needed namespace is unavailable.
func command(t *testing.T, p sandbox.Policy, name string, args ...string) *exec.Cmd {
	t.Helper()
	requireLandlock(t)
	cmd, err := sandbox.Command(t.Context(), p, name, args...)
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the kernel cannot enforce this policy: %v", err)
	}
	if err != nil {
		t.Fatalf("Command(%+v) = %v", p, err)
	}
	return cmd
}

// sh runs script with sh -c under p and returns its combined output and
// the error from Run.
func sh(t *testing.T, p sandbox.Policy, script string) (string, error) {
	t.Helper()
	out, err := command(t, p, "sh", "-c", script).CombinedOutput()
	return string(out), err
}

// mustFail checks that a command failed because the sandbox denied it.
func mustFail(t *testing.T, p sandbox.Policy, out string, err error) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("command succeeded or did not run (err %v); want a denial; output:\n%s", err, out)
	}
	if !sandbox.Denied(p, err, []byte(out)) {
		t.Errorf("Denied(%v, %q) = false; want true", err, out)
	}
}

// mustSucceed checks that a command exited 0.
func mustSucceed(t *testing.T, out string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("command failed: %v; output:\n%s", err, out)
	}
}

// mustNotExist checks that the sandbox left no file at path.
func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(%s) = %v; want it absent", path, err)
	}
}

// mustContain checks that the file at path holds want.
func mustContain(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s = %q; want %q", path, b, want)
	}
}
