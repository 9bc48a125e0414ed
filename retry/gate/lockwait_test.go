//go:build linux

package gate_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/internal/filelock"
	"github.com/agentcli/agent/internal/filelock/filelocktest"
	"github.com/agentcli/agent/retry/gate"
)

// TestCooldownLockHolderDoesNotHang: a background `flock` on a provider's
// cooldown.lock (which hung every later agent exec until it exited) makes
// ExtendDeadline give up after filelock.DefaultMaxWait, naming its pid.
func TestCooldownLockHolderDoesNotHang(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retrygate", "openai", "cooldown")
	if err := gate.ExtendDeadline(t.Context(), path, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	pid := filelocktest.Holder(t, path+".lock")
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := gate.ExtendDeadline(t.Context(), path, time.Unix(1_900_000_000, 0))
		var held *filelock.HeldError
		if !errors.As(err, &held) || held.PID != pid || time.Since(start) != filelock.DefaultMaxWait {
			t.Errorf("ExtendDeadline with the lock held = %v after %v; want a HeldError naming pid %d after %v",
				err, time.Since(start), pid, filelock.DefaultMaxWait)
		}
	})
	// Ctrl-C ends the wait at once.
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		err := gate.ExtendDeadline(ctx, path, time.Unix(1_900_000_000, 0))
		if !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("ExtendDeadline cancelled after 1s = %v after %v; want context.Canceled after 1s", err, time.Since(start))
		}
	})
}
