package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/tools/sandbox"
)

// TestMain lets the sandbox re-execute this test binary as its helper,
// builds the binaries in the background for a run of every test,
// removes the agent binary the end-to-end tests built, then fails the
// package if any goroutine outlives its tests.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	flag.Parse()
	wait := func() {}
	if flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		wait = prebuild()
	}
	code := m.Run()
	wait()
	if built.Load() {
		if bin, err := agentBinary(); err == nil {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
