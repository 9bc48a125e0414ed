package modelclient_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine outlives its tests: streams,
// watchdog timers and connections all have owners that must end them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
