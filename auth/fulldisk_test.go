//go:build linux

package auth_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
)

// smallDisk mounts a 64 KiB tmpfs for the test (root only).
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes dir/filler until the disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestRefreshOnFullDisk: a refresh on a full disk spends the rotating
// refresh token. The new tokens serve the request that needed them and
// later ones, from memory; the user is told once that the login is not
// saved; saving is retried and succeeds once there is room, and the user
// is told that too.
func TestRefreshOnFullDisk(t *testing.T) {
	dir := smallDisk(t)
	s := auth.NewStore(dir, nil)
	last := t0.Add(-time.Hour)
	if err := s.Save(&auth.File{AuthMode: auth.ModeChatGPT, LastRefresh: &last, Tokens: &auth.Tokens{
		IDToken:      idToken("acct-1234567890", "user@example.com"),
		AccessToken:  accessToken("acct-1234567890", t0.Add(time.Minute), 0), // stale: refreshed before use
		RefreshToken: "test-refresh-" + leak + "-1",
		AccountID:    "acct-1234567890",
	}}); err != nil {
		t.Fatal(err)
	}
	// Take the store's lock once, so its lock file exists before the disk fills.
	unlock, err := s.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	iss := newFakeIssuer(t)
	iss.now = func() time.Time { return t0 }
	var mu sync.Mutex
	var notices []string
	m, err := auth.LoadManager(auth.ManagerOptions{Store: s, Endpoints: auth.Endpoints{Issuer: iss.URL()},
		Now: func() time.Time { return t0 }, Notice: func(msg string) { mu.Lock(); notices = append(notices, msg); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, dir)

	h, err := apply(t, m)
	if err != nil {
		t.Fatalf("Apply on a full disk = %v; want the refreshed tokens used", err)
	}
	fresh := accessToken("acct-1234567890", t0.Add(time.Hour), 1)
	if h.Get("Authorization") != "Bearer "+fresh || iss.count() != 1 {
		t.Fatalf("request sent %q after %d refreshes; want the new access token after one", h.Get("Authorization"), iss.count())
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "could not be saved") || !strings.Contains(notices[0], "no space left on device") {
		t.Errorf("notices = %q; want one saying the login is not saved and why", notices)
	}
	disk, err := s.Load()
	if err != nil || disk.Tokens.RefreshToken != "test-refresh-"+leak+"-1" {
		t.Fatalf("auth.json = %v, %v; want the old (spent) tokens still on disk", disk, err)
	}

	// Later requests use the kept tokens; a 401 path re-reading auth.json
	// does not fall back to the spent ones.
	h, err = apply(t, m)
	if err != nil || h.Get("Authorization") != "Bearer "+fresh || iss.count() != 1 {
		t.Errorf("second request: %q, %v after %d refreshes", h.Get("Authorization"), err, iss.count())
	}
	if retry, err := m.Reload(t.Context(), http.Header{"Authorization": {"Bearer " + fresh}}); err != nil || retry {
		t.Errorf("Reload = %v, %v; want the in-memory tokens kept (no retry)", retry, err)
	}
	if len(notices) != 1 {
		t.Errorf("told again: %q", notices)
	}

	// Room again: the next request saves them.
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if _, err := apply(t, m); err != nil {
		t.Fatal(err)
	}
	disk, err = s.Load()
	if err != nil || disk.Tokens.RefreshToken != "test-refresh-"+leak+"-2" || disk.Tokens.AccessToken != fresh {
		t.Errorf("auth.json after the retry = %+v, %v; want the refreshed tokens", disk, err)
	}
	if len(notices) != 2 || !strings.Contains(notices[1], "saved now") {
		t.Errorf("notices = %q; want a second saying the login is saved now", notices)
	}
}
