package otlp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine outlives its tests: the
// exporters' batching and connections end with their shutdown.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
