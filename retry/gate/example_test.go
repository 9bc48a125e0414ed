package gate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/agentcli/agent/retry/gate"
)

// A job's retry loop: wait out the backoff (a cooldown for everyone when
// the provider said rate_limit), then re-send holding a slot until the
// answer's headers are in.
func ExampleGate() {
	g := gate.New(3) // shared by every job of the process
	ctx := context.Background()
	sleep := func(_ context.Context, d time.Duration) error {
		fmt.Println("waiting", d)
		return nil
	}
	if err := g.Wait(ctx); err != nil { // first attempt: no slot, but no sending during a cooldown
		return
	}
	fmt.Println("first attempt: 429, Retry-After: 2")
	if err := g.Cooldown(ctx, 2*time.Second, sleep); err != nil {
		return
	}
	release, err := g.Acquire(ctx)
	if err != nil {
		return
	}
	fmt.Println("re-send, holding a slot:", g.Stats().Resending)
	release() // response headers arrived: the stream may run long, the slot is free
	// Output:
	// first attempt: 429, Retry-After: 2
	// waiting 2s
	// re-send, holding a slot: 1
}
