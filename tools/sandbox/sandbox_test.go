//go:build linux

package sandbox_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// strict is a workspace-write policy in which the temporary directories
// stay read-only, so that another t.TempDir is outside every writable
// root.
func strict(ws string, roots ...string) sandbox.Policy {
	return sandbox.Policy{
		Mode:                sandbox.WorkspaceWrite,
		Workspace:           ws,
		WritableRoots:       roots,
		ExcludeTmpdirEnvVar: true,
		ExcludeSlashTmp:     true,
	}
}

func TestReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "in"), []byte("readable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: ws}

	out, err := sh(t, p, "cat in && echo hi > /dev/null && pwd")
	mustSucceed(t, out, err)
	if want := "readable\n" + ws + "\n"; out != want {
		t.Errorf("output = %q; want %q", out, want)
	}

	out, err = sh(t, p, "echo hi > f")
	mustFail(t, p, out, err)
	if lower := strings.ToLower(out); !strings.Contains(lower, "read-only file system") && !strings.Contains(lower, "permission denied") {
		t.Errorf("output = %q; want read-only file system or permission denied", out)
	}
	mustNotExist(t, filepath.Join(ws, "f"))

	out, err = sh(t, p, "mkdir d || rm in")
	mustFail(t, p, out, err)
	mustNotExist(t, filepath.Join(ws, "d"))
	mustContain(t, filepath.Join(ws, "in"), "readable\n")
}

func TestZeroPolicyIsReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out, err := sh(t, sandbox.Policy{Workspace: ws}, "echo hi > f")
	mustFail(t, sandbox.Policy{}, out, err)
	mustNotExist(t, filepath.Join(ws, "f"))
}

func TestWorkspaceWrite(t *testing.T) {
	t.Parallel()
	t.Run("inside", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		out, err := sh(t, strict(ws), "echo hi > f && mkdir -p a b && echo x > a/y && mv a/y b/y && rm -r a")
		mustSucceed(t, out, err)
		mustContain(t, filepath.Join(ws, "f"), "hi\n")
		mustContain(t, filepath.Join(ws, "b", "y"), "x\n")
	})
	t.Run("outside", func(t *testing.T) {
		t.Parallel()
		ws, other := t.TempDir(), t.TempDir()
		p := strict(ws)
		out, err := sh(t, p, "echo hi > "+filepath.Join(other, "f"))
		mustFail(t, p, out, err)
		mustNotExist(t, filepath.Join(other, "f"))
	})
	t.Run("writable root", func(t *testing.T) {
		t.Parallel()
		ws, extra := t.TempDir(), t.TempDir()
		out, err := sh(t, strict(ws, extra), "echo hi > "+filepath.Join(extra, "f"))
		mustSucceed(t, out, err)
		mustContain(t, filepath.Join(extra, "f"), "hi\n")
	})
	t.Run("relative writable root", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := sh(t, strict(ws, "sub"), "echo hi > sub/f")
		mustSucceed(t, out, err)
	})
	t.Run("missing writable root", func(t *testing.T) {
		t.Parallel()
		requireLandlock(t)
		ws := t.TempDir()
		_, err := sandbox.Command(t.Context(), strict(ws, filepath.Join(ws, "nope")), "true")
		if err == nil || errors.Is(err, sandbox.ErrUnavailable) {
			t.Errorf("Command with a missing writable root = %v; want a path error", err)
		}
	})
}

func TestWorkspaceWriteKeepsGitReadOnly(t *testing.T) {
	t.Parallel()
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		git := filepath.Join(ws, ".git")
		if err := os.MkdirAll(filepath.Join(git, "refs"), 0o755); err != nil {
			t.Fatal(err)
		}
		p := strict(ws)
		out, err := sh(t, p, "echo hi > f")
		mustSucceed(t, out, err)
		for _, script := range []string{"echo x > .git/x", "mkdir .git/d", "rm -rf .git"} {
			out, err := sh(t, p, script)
			mustFail(t, p, out, err)
		}
		mustNotExist(t, filepath.Join(git, "x"))
		mustNotExist(t, filepath.Join(git, "d"))
		if _, err := os.Stat(filepath.Join(git, "refs")); err != nil {
			t.Errorf("rm -rf .git removed refs: %v", err)
		}
		// The read-only mount lived in the sandbox only.
		if err := os.WriteFile(filepath.Join(git, "host"), nil, 0o644); err != nil {
			t.Errorf("writing .git outside the sandbox: %v", err)
		}
	})
	t.Run("gitdir file", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, "realgit"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: realgit\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := strict(ws)
		for _, script := range []string{"echo x > realgit/x", "echo gitdir: /elsewhere > .git"} {
			out, err := sh(t, p, script)
			mustFail(t, p, out, err)
		}
		mustNotExist(t, filepath.Join(ws, "realgit", "x"))
		mustContain(t, filepath.Join(ws, ".git"), "gitdir: realgit\n")
	})
}

func TestWorkspaceWriteTemporaryDirectories(t *testing.T) {
	// Not parallel: it sets TMPDIR.
	ws, tmpdir := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	slashTmp, err := os.MkdirTemp("/tmp", "sandbox-test-")
	if err != nil {
		t.Skipf("no /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(slashTmp) })

	base := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws}
	tests := []struct {
		name                   string
		excludeTmpdir, exSlash bool
		dir                    string
		ok                     bool
	}{
		{"TMPDIR allowed", false, true, tmpdir, true},
		{"TMPDIR excluded", true, true, tmpdir, false},
		{"/tmp allowed", true, false, slashTmp, true},
		{"/tmp excluded", true, true, slashTmp, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			p.ExcludeTmpdirEnvVar, p.ExcludeSlashTmp = tt.excludeTmpdir, tt.exSlash
			f := filepath.Join(tt.dir, strings.ReplaceAll(tt.name, " ", "_"))
			out, err := sh(t, p, "echo hi > "+f)
			if tt.ok {
				mustSucceed(t, out, err)
				mustContain(t, f, "hi\n")
			} else {
				mustFail(t, p, out, err)
				mustNotExist(t, f)
			}
		})
	}
}

func TestDangerFullAccess(t *testing.T) {
	t.Parallel()
	ws, other := t.TempDir(), t.TempDir()
	p := sandbox.Policy{Mode: sandbox.DangerFullAccess, Workspace: ws}
	cmd, err := sandbox.Command(t.Context(), p, "sh", "-c", "echo hi > "+filepath.Join(other, "f"))
	if err != nil {
		t.Fatal(err)
	}
	// Unconfined: sh under the guard alone, in no namespace or new session.
	if a := cmd.SysProcAttr; !slices.Equal(cmd.Args[len(cmd.Args)-3:len(cmd.Args)-1], []string{"sh", "-c"}) ||
		a == nil || a.Cloneflags != 0 || a.Setsid {
		t.Errorf("Command = %v (SysProcAttr %+v); want sh under the guard", cmd.Args, cmd.SysProcAttr)
	}
	out, err := cmd.CombinedOutput()
	mustSucceed(t, string(out), err)
	mustContain(t, filepath.Join(other, "f"), "hi\n")
}

func TestCommandPassesThroughStatusEnvAndDir(t *testing.T) {
	t.Parallel()
	ws, dir := t.TempDir(), t.TempDir()
	cmd := command(t, sandbox.Policy{Workspace: ws}, "sh", "-c", `echo "$FOO $(pwd)"; echo oops >&2; exit 7`)
	cmd.Env = []string{"FOO=bar", "PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("Run = %v; want exit status 7", err)
	}
	if got, want := stdout.String(), "bar "+dir+"\n"; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	if got := stderr.String(); got != "oops\n" {
		t.Errorf("stderr = %q; want oops", got)
	}
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	cmd := command(t, sandbox.Policy{Workspace: t.TempDir()}, "agent-sandbox-no-such-command")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 {
		t.Fatalf("Run = %v, output %q; want exit status 127", err, out)
	}
	if sandbox.Denied(sandbox.Policy{}, err, out) {
		t.Errorf("Denied = true for a missing command")
	}
}

func TestHelperRefusesWithoutNamespaces(t *testing.T) {
	t.Parallel()
	cmd := command(t, sandbox.Policy{Workspace: t.TempDir()}, "true")
	if cmd.SysProcAttr == nil {
		t.Skip("this policy needs no namespace here")
	}
	cmd.SysProcAttr = nil // a caller replacing it loses the network namespace
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != sandbox.ExitHelperFailed {
		t.Fatalf("Run = %v, output %q; want exit status %d", err, out, sandbox.ExitHelperFailed)
	}
	if !strings.Contains(string(out), "not in a new") {
		t.Errorf("output = %q; want the namespace check", out)
	}
	if sandbox.Denied(sandbox.Policy{}, err, out) {
		t.Errorf("Denied = true for a helper failure")
	}
}

// TestCapabilities checks what the command holds when the helper needed
// capabilities of its own (for the .git bind mount): root keeps only the
// file and identity capabilities; anyone else, none at all.
func TestCapabilities(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := command(t, strict(ws), "grep", "^Cap", "/proc/self/status").CombinedOutput()
	mustSucceed(t, string(out), err)
	caps := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, hex, _ := strings.Cut(line, ":")
		v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		caps[name] = v
	}
	if caps["CapInh"] != 0 || caps["CapAmb"] != 0 {
		t.Errorf("inheritable or ambient capabilities left: %s", out)
	}
	if os.Geteuid() != 0 {
		if caps["CapPrm"] != 0 || caps["CapEff"] != 0 {
			t.Errorf("non-root command holds capabilities: %s", out)
		}
		return
	}
	// chown dac_override fowner fsetid kill setgid setuid (bits 0-7 but
	// 2), net_bind_service 10, ipc_lock 14, sys_chroot 18, audit_write 29.
	// A container may have taken some of them away already.
	const kept = 0x200444fb
	if caps["CapBnd"]&^kept != 0 || caps["CapEff"]&^kept != 0 {
		t.Errorf("root command capabilities = %s; want a subset of %#x", out, kept)
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]sandbox.Mode{
		"": sandbox.ReadOnly, "read-only": sandbox.ReadOnly,
		"workspace-write": sandbox.WorkspaceWrite, "danger-full-access": sandbox.DangerFullAccess,
	} {
		if got, err := sandbox.ParseMode(in); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := sandbox.ParseMode("yolo"); err == nil {
		t.Error("ParseMode(yolo) succeeded")
	}
	if _, err := sandbox.Command(t.Context(), sandbox.Policy{Mode: "yolo"}, "true"); err == nil {
		t.Error("Command with mode yolo succeeded")
	}
}

// TestReadOnlyPathsInsideWritableRoot checks that the agent's home stays
// read-only where it lies inside a writable root (agent run in $HOME, or
// AGENT_HOME under /tmp), while the rest of the root and git still work.
func TestReadOnlyPathsInsideWritableRoot(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	setup := func(t *testing.T, home string) string {
		t.Helper()
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(home, "config.toml")
		if err := os.WriteFile(cfg, []byte("model = \"gpt-test\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	t.Run("home in the workspace", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		if out, err := exec.Command(git, "init", "-q", ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		home := filepath.Join(ws, ".agent")
		cfg := setup(t, home)
		p := strict(ws)
		p.ReadOnlyPaths = []string{".agent"} // relative to the workspace
		for _, script := range []string{
			`printf '[mcp_servers.x]\ncommand = "sh"\n' >> .agent/config.toml`,
			"rm .agent/config.toml", "mv .agent gone", "chmod 666 .agent/config.toml",
		} {
			out, err := sh(t, p, script)
			mustFail(t, p, out, err)
		}
		mustContain(t, cfg, "model = \"gpt-test\"\n")
		out, err := sh(t, p, "echo hi > f && git status --porcelain")
		mustSucceed(t, out, err)
		if !strings.Contains(out, "?? f\n") {
			t.Errorf("git status = %q; want the new file", out)
		}
		mustContain(t, filepath.Join(ws, "f"), "hi\n")
		// git status works read-only too.
		out, err = sh(t, sandbox.Policy{Workspace: ws, ReadOnlyPaths: p.ReadOnlyPaths}, "git status --porcelain")
		mustSucceed(t, out, err)
		if !strings.Contains(out, "?? f\n") {
			t.Errorf("read-only git status = %q; want the new file", out)
		}
	})
	t.Run("home under /tmp", func(t *testing.T) {
		t.Parallel()
		tmp, err := os.MkdirTemp("/tmp", "agent-home-test-")
		if err != nil {
			t.Skipf("no /tmp: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(tmp) })
		cfg := setup(t, filepath.Join(tmp, "home"))
		p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: t.TempDir(), ReadOnlyPaths: []string{filepath.Join(tmp, "home")}}
		out, err := sh(t, p, "echo x >> "+cfg)
		mustFail(t, p, out, err)
		mustContain(t, cfg, "model = \"gpt-test\"\n")
		out, err = sh(t, p, "echo ok > "+filepath.Join(tmp, "beside"))
		mustSucceed(t, out, err)
	})
}
