// Package frontends tests agent's front ends through the built binary and
// the programs that drive them: the chat under tmux, the app-server under
// Codex's own TUI, exec --remote and SDK, agent acp under the ACP client
// library and beside Codex's adapter, and agent proxy under Codex. They
// are a package of their own, apart from cmd/agent's, so that each test
// binary keeps its time limit on a busy machine.
package frontends

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/internal/agenttest"
)

// e2eParallel is how many parallel tests run at once unless -parallel
// says otherwise: the tests mostly wait for the processes they drive, so
// on two cores several at a time overlap those waits.
const e2eParallel = 8

// TestMain builds the binaries in the background for a run of every test,
// removes them after, then fails the package if any goroutine outlives
// its tests.
func TestMain(m *testing.M) {
	flag.Parse()
	wait := func() {}
	if flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		wait = agenttest.Prebuild()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(e2eParallel))
	}
	code := m.Run()
	wait()
	agenttest.Remove()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
