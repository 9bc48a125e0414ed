package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// The end-to-end helpers are internal/agenttest's, shared with the tests
// of cmd/agent/frontends.

// buildAgent returns the built binary ([agenttest.Agent]).
func buildAgent(t *testing.T) string {
	t.Helper()
	return agenttest.Agent(t)
}

func agentCmd(t *testing.T, bin, home string, args ...string) (*exec.Cmd, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	return agenttest.Cmd(t, bin, home, args...)
}

func writeConfig(t *testing.T, baseURL string, extra string) string {
	t.Helper()
	return agenttest.WriteConfig(t, baseURL, extra)
}

func appendConfig(t *testing.T, home, text string) {
	t.Helper()
	agenttest.AppendConfig(t, home, text)
}

func TestE2EExec(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Status(500),
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "FRAGMENT"), rt.Drop()),
		rt.Reply("r2", "m2", "hello from the fake server"),
	})
	home := writeConfig(t, srv.URL, "")
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "hi")
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
	}
	if got := stdout.String(); got != "hello from the fake server\n" {
		t.Errorf("stdout = %q", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests; want 3", n)
	}
	for _, w := range []string{"Retrying request... 1/4", "Reconnecting... 1/5"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	logs, err := os.ReadFile(filepath.Join(home, "log", "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(logs)+stdout.String()+stderr.String(), fakeKey) {
		t.Error("the API key leaked")
	}
	if st, err := os.Stat(filepath.Join(home, "log", "agent.log")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode = %v, %v; want 0600", st.Mode().Perm(), err)
	}
}

func TestE2EDemo(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	cmd, stdout, stderr := agentCmd(t, bin, t.TempDir(), "exec", "-c", "model_provider=demo", "ping")
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
	}
	if strings.Count(stdout.String(), "[demo]") != 1 {
		t.Errorf("stdout = %q; want one demo answer", stdout)
	}
}

// TestE2ESigintWhileWaitingForNetwork: the server cannot be reached, the
// unbounded connection retries keep waiting, and SIGINT ends the run at
// once with exit 130.
func TestE2ESigintWhileWaitingForNetwork(t *testing.T) {
	t.Parallel()
	// A host that is not this machine: a loopback refusal ends at once.
	dead := "http://" + deadAddress(t, remoteIP(t)) + "/v1"
	bin := buildAgent(t)
	home := writeConfig(t, dead, "")
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "-c", "model_providers.fake.request_max_retries=0", "hi")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait (bounded) until the binary says it is waiting for the network.
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(stderr.String(), "waiting for network") {
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no waiting notice; stderr:\n%s", stderr.String())
		case <-tick.C:
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Interrupted {
			t.Errorf("exit = %v; want 130", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("agent did not stop after SIGINT")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q; want nothing", stdout)
	}
	// SIGINT ended the first 5 s wait: no second attempt was announced (a
	// count, not a stopwatch, so a loaded machine cannot fail it).
	if n := strings.Count(stderr.String(), "Reconnecting... waiting for network"); n != 1 ||
		!strings.Contains(stderr.String(), "Reconnecting... waiting for network; next try in 5.0s") {
		t.Errorf("%d waiting notices; want exactly the first (SIGINT cuts its wait short); stderr:\n%s", n, stderr.String())
	}
}
