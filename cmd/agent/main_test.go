package main

import (
	"os"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/tools/sandbox"
)

// TestMain lets the sandbox re-execute this test binary as its helper,
// then runs the tests as every end-to-end package does ([agenttest.Main]).
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(agenttest.Main(m))
}
