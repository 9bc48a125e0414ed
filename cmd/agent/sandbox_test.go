package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/tools/sandbox"
)

// runSandboxInProcess runs `agent sandbox ARGS...` through cobra in this
// process. Only unsandboxed runs work in-process: this test binary is not
// a sandbox helper (its TestMain does not call sandbox.MaybeRunHelper).
func runSandboxInProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), append([]string{"sandbox"}, args...), Env{
		Stdin:  strings.NewReader(""),
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(string) string { return "" },
	})
	return code, out.String(), errOut.String()
}

func TestSandboxUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "requires at least 1 arg"},
		{"bad mode", []string{"--mode", "yolo", "--", "true"}, "unknown mode"},
		{"writable outside workspace-write", []string{"--writable", "/tmp", "--", "true"}, "need --mode workspace-write"},
	}
	for _, tt := range tests {
		code, _, stderr := runSandboxInProcess(t, tt.args...)
		if code != exitcode.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: agent sandbox %q = %d, stderr %q; want %d and %q", tt.name, tt.args, code, stderr, exitcode.Usage, tt.want)
		}
	}
}

func TestSandboxFullAccessInProcess(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runSandboxInProcess(t, "--mode", "danger-full-access", "--",
		"sh", "-c", "echo out; echo err >&2; exit 7")
	if code != 7 {
		t.Errorf("exit code = %d; want 7", code)
	}
	if stdout != "out\n" {
		t.Errorf("stdout = %q; want out", stdout)
	}
	if !strings.HasPrefix(stderr, "err\n") {
		t.Errorf("stderr = %q; want the command's err first", stderr)
	}
}

// sandboxE2E runs the built agent binary as `agent sandbox ARGS...` in dir
// and returns its exit code and output; it skips without Landlock.
func sandboxE2E(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return sandboxE2EEnv(t, dir, nil, args...)
}

// sandboxE2EEnv is sandboxE2E with env added to agent's environment.
func sandboxE2EEnv(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock on this kernel: %v", err)
	}
	bin := buildAgent(t)
	cmd := exec.Command(bin, append([]string{"sandbox"}, args...)...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("agent sandbox: %v", err)
	}
	if strings.Contains(errOut.String(), "cannot enforce") {
		t.Skipf("the kernel cannot enforce the policy: %s", errOut.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func TestE2ESandbox(t *testing.T) {
	t.Parallel()
	t.Run("exit code", func(t *testing.T) {
		t.Parallel()
		if code, _, stderr := sandboxE2E(t, t.TempDir(), "--", "sh", "-c", "exit 7"); code != 7 {
			t.Errorf("exit code = %d; want 7 (stderr %q)", code, stderr)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := sandboxE2E(t, t.TempDir(), "sh", "-c", "echo out; echo oops >&2; exit 3")
		if code != 3 || stdout != "out\n" || !strings.HasPrefix(stderr, "oops\n") {
			t.Errorf("agent sandbox = %d, %q, %q; want 3, out, oops first", code, stdout, stderr)
		}
	})
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		if code, _, stderr := sandboxE2E(t, t.TempDir(), "sh", "-c", "kill -TERM $$"); code != 128+15 {
			t.Errorf("exit code = %d; want 143 (stderr %q)", code, stderr)
		}
	})
	t.Run("read-only denial", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		code, _, stderr := sandboxE2E(t, dir, "--", "sh", "-c", "echo hi > f")
		if code == 0 || !strings.Contains(strings.ToLower(stderr), "read-only file system") {
			t.Errorf("agent sandbox = %d, stderr %q; want a read-only file system failure", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "f")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("f exists after a read-only run: %v", err)
		}
	})
	t.Run("workspace-write", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := sandboxE2E(t, dir, "--mode", "workspace-write", "--exclude-slash-tmp", "--exclude-tmpdir-env-var",
			"--", "sh", "-c", "echo hi > f && echo no > .git/x")
		if code == 0 || !strings.Contains(strings.ToLower(stderr), "read-only file system") {
			t.Errorf("agent sandbox = %d, stderr %q; want the .git write refused", code, stderr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "f")); string(b) != "hi\n" {
			t.Errorf("f = %q, %v; want hi", b, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "x")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf(".git/x exists: %v", err)
		}
	})
}

// TestE2ESandboxHidesAgentHome checks that no restricted mode lets a
// command read $AGENT_HOME (credentials, sessions) or take its locks,
// even where the home lies inside the workspace's writable tree.
func TestE2ESandboxHidesAgentHome(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"auth.json": `{"OPENAI_API_KEY":"sk-test-hidden"}`, "sessions/index.lock": ""} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `cat "$AGENT_HOME/auth.json"; ls -A "$AGENT_HOME"; flock -n "$AGENT_HOME/sessions/index.lock" echo locked`
	for _, args := range [][]string{
		{"--mode", "read-only"},
		{"--mode", "workspace-write", "--writable", dir},
	} {
		_, stdout, stderr := sandboxE2EEnv(t, ws, []string{"AGENT_HOME=" + home}, append(args, "--", "sh", "-c", script)...)
		if strings.Contains(stdout, "sk-test-hidden") || strings.Contains(stdout, "sessions") || strings.Contains(stdout, "locked") {
			t.Errorf("%v: the command reached $AGENT_HOME: stdout %q, stderr %q", args, stdout, stderr)
		}
	}
}
