package gate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCooldownCacheSeesEveryChange: the cooldown read is cached by the
// file's identity, and every later cooldown written (a new file each
// time, as ExtendDeadline writes it) is read, as is the file's removal.
func TestCooldownCacheSeesEveryChange(t *testing.T) {
	m := &machine{dir: t.TempDir()}
	if at := m.notBefore(); !at.IsZero() {
		t.Fatalf("no cooldown file: notBefore = %v, want zero", at)
	}
	base := time.Unix(1_800_000_000, 0)
	for i := range 3 {
		want := base.Add(time.Duration(i) * time.Second)
		if err := ExtendDeadline(t.Context(), m.cooldownPath(), want); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read is the cached one
			if at := m.notBefore(); !at.Equal(want) {
				t.Fatalf("after cooldown %d: notBefore = %v, want %v", i, at, want)
			}
		}
	}
	if err := os.Remove(filepath.Join(m.dir, "cooldown")); err != nil {
		t.Fatal(err)
	}
	if at := m.notBefore(); !at.IsZero() {
		t.Fatalf("cooldown file removed: notBefore = %v, want zero", at)
	}
}
