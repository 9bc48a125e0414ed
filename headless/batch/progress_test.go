package batch

import (
	"bytes"
	"testing"
	"time"
)

func TestBatchProgressETA(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := NewProgress(&buf, true, 10, func() time.Time { return now })
	p.Started("a")
	p.Started("b")
	p.Retrying("b", true)
	now = now.Add(30 * time.Second)
	p.Finished(Result{ID: "a", Status: StatusCompleted})
	p.Finished(Result{ID: "x", Status: StatusCompleted})
	if got, want := p.status(), "batch 2/10 done · 0 failed · 1 retrying · ETA 2m0s"; got != want {
		t.Errorf("status() = %q; want %q", got, want)
	}
}
