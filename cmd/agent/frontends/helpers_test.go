package frontends

import (
	"os/exec"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// fakeKey is the key the configurations name; tests assert it never leaks.
const fakeKey = agenttest.FakeKey

// buildAgent returns the built binary ([agenttest.Agent]).
func buildAgent(t *testing.T) string {
	t.Helper()
	return agenttest.Agent(t)
}

func writeConfig(t *testing.T, baseURL string, extra string) string {
	t.Helper()
	return agenttest.WriteConfig(t, baseURL, extra)
}

func agentCmd(t *testing.T, bin, home string, args ...string) (*exec.Cmd, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	return agenttest.Cmd(t, bin, home, args...)
}
