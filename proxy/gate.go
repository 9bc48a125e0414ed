package proxy

import (
	"context"
	"sync/atomic"
)

// gate bounds the re-sends in flight at once. A slot is taken after the
// backoff wait, just before the re-send, and given back once that attempt
// is decided (committed or failed), so a long stream does not hold it.
type gate struct {
	slots   chan struct{}
	held    atomic.Int64 // slots taken
	waiting atomic.Int64 // acquire calls blocked
}

func newGate(n int) *gate {
	return &gate{slots: make(chan struct{}, n)}
}

// acquire takes a slot, waiting for one until ctx ends.
func (g *gate) acquire(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		g.held.Add(1)
		return nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	select {
	case g.slots <- struct{}{}:
		g.held.Add(1)
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// release gives back a slot taken by acquire.
func (g *gate) release() {
	g.held.Add(-1)
	<-g.slots
}
