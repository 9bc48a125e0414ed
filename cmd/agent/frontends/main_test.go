// Package frontends tests agent's front ends through the built binary and
// the programs that drive them: the chat under tmux, the app-server under
// Codex's own TUI, exec --remote and SDK, agent acp under the ACP client
// library and beside Codex's adapter, and agent proxy under Codex. They
// are a package of their own, apart from cmd/agent's, so that each test
// binary keeps its time limit on a busy machine.
package frontends

import (
	"os"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
)

func TestMain(m *testing.M) { os.Exit(agenttest.Main(m)) }
