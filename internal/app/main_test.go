package app

import (
	"os"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// TestMain lets the sandbox re-execute this test binary as its helper, so
// the sessions opened here run the model's commands in the real sandbox.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
