package mcp_test

import (
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/internal/mcptest"
)

// binDir holds the stdio test server, built once per test process.
var binDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "mcptest-") })

var stdioServer = sync.OnceValues(func() (string, error) {
	dir, err := binDir()
	if err != nil {
		return "", err
	}
	return mcptest.Build(dir)
})

// TestMain removes the test server and fails the package if any goroutine
// outlives its tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := binDir(); err == nil {
		os.RemoveAll(dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// serverBinary returns the stdio test server's path.
func serverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the stdio test server; skipped in -short mode")
	}
	bin, err := stdioServer()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
