package app

import (
	"time"

	"github.com/agentcli/agent/internal/setup"
)

// demoPace slows the demo's streaming down when someone is watching.
func demoPace(env setup.Env) time.Duration {
	if env.StderrTTY {
		return 15 * time.Millisecond
	}
	return 0
}
