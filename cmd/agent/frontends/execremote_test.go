package frontends

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// commandScript runs one command, then answers.
func commandScript(answer string) rt.Script {
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "exec_command", `{"cmd":"echo from-the-command"}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", answer),
	}
}

// runExecRemoteCmd runs agent exec --remote url with env and returns its
// exit code, stdout and stderr.
func runExecRemoteCmd(t *testing.T, bin, url string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"exec", "--remote", url}, args...)...)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "AGENT_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var out, errOut syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestExecRemote: agent exec --remote runs its turn on agent app-server
// (with its bearer token) and prints the answer on stdout, the command on
// stderr; without the token it fails, naming the 401.
func TestExecRemote(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, commandScript("remote answer"))
	url, _ := startAppServerEnv(t, bin, appServerConfig(t, srv.URL, false), []string{"TOK=tok-123"}, "--ws-token-env", "TOK", "-s", "danger-full-access")
	code, _, stderr := runExecRemoteCmd(t, bin, url, nil, "hi")
	if code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("without the token: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runExecRemoteCmd(t, bin, url, []string{"MYTOKEN=tok-123"}, "--remote-auth-token-env", "MYTOKEN", "-C", t.TempDir(), "hi")
	if code != 0 || stdout != "remote answer\n" {
		t.Errorf("exit %d, stdout %q\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "echo from-the-command") || !strings.Contains(stderr, "thread id: ") {
		t.Errorf("stderr does not show the thread and the command:\n%s", stderr)
	}
}

// TestExecRemoteOnCodex: agent exec --remote runs its turn on Codex 0.171's
// own app-server.
func TestExecRemoteOnCodex(t *testing.T) {
	t.Parallel()
	cli := codexCLI(t)
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "codex served this")})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cmd := codexCmd(ctx, t, cli, "app-server", "--listen", "ws://"+addr)
	home := strings.TrimPrefix(cmd.Env[2], "CODEX_HOME=")
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"" + srv.URL + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"responses\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "FAKE_KEY="+fakeKey)
	cmd.WaitDelay = 5 * time.Second // node's child, the codex binary, holds the pipes
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("codex app-server did not listen on %s\n%s", addr, &stderr)
		}
	}
	code, stdout, errOut := runExecRemoteCmd(t, bin, "ws://"+addr, nil, "-C", t.TempDir(), "hi")
	if code != 0 || stdout != "codex served this\n" {
		t.Errorf("exit %d, stdout %q\nstderr:\n%s\ncodex:\n%s", code, stdout, errOut, &stderr)
	}
}
