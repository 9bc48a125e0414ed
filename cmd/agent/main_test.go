package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/tools/sandbox"
)

// TestMain lets the sandbox re-execute this test binary as its helper, then
// fails the package if any goroutine outlives its tests.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}
