package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/tools/sandbox"
)

// e2eParallel is how many parallel tests run at once unless -parallel
// says otherwise: the end-to-end tests mostly wait for the processes they
// drive, so on two cores eight at a time overlap those waits (more, and
// a machine at a load of 20 times out tests that wait for Codex's TUI).
const e2eParallel = 8

// setParallel sets -test.parallel to n unless the command line set it.
func setParallel(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// TestMain lets the sandbox re-execute this test binary as its helper,
// builds the binaries in the background for a run of every test,
// removes the agent binary the end-to-end tests built, then fails the
// package if any goroutine outlives its tests.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	flag.Parse()
	wait := func() {}
	if flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		wait = agenttest.Prebuild()
	}
	setParallel(e2eParallel)
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
