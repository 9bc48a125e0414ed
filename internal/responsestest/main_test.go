package responsestest_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMain fails the package if goroutines outlive the tests: every server
// must be closed and every handler released.
func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if err := settle(before); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// settle waits, yielding rather than sleeping, for the goroutine count to
// drop back to want. Closed connections unwind asynchronously (the
// netpoller must report the close), hence the real-time bound.
func settle(want int) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if runtime.NumGoroutine() <= want {
			return nil
		}
		runtime.Gosched()
	}
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return fmt.Errorf("goroutine leak: %d running, want <= %d\n%s", runtime.NumGoroutine(), want, buf)
}
