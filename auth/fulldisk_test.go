package auth_test

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/atomicfile"
)

// refreshOnFullDisk: a refresh on a full disk spends the rotating
// refresh token. The new tokens serve the request that needed them and
// later ones, from memory; the user is told once that the login is not
// saved, and why; auth.json keeps its old content, whole, with nothing
// left beside it; saving is retried and succeeds once there is room, and
// the user is told that too. full fills s's disk, free makes room.
func refreshOnFullDisk(t *testing.T, s *auth.Store, full, free func()) {
	t.Helper()
	dir := filepath.Dir(s.Path())
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
	before, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	full()

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
	if after, err := os.ReadFile(s.Path()); err != nil || !bytes.Equal(after, before) {
		t.Fatalf("auth.json after the failed save = %q, %v; want its old content, whole", after, err)
	}
	if ents, _ := os.ReadDir(dir); slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return strings.Contains(e.Name(), ".tmp-") }) {
		t.Errorf("%s holds %v; want no temporary file left", dir, ents)
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
	free()
	if _, err := apply(t, m); err != nil {
		t.Fatal(err)
	}
	disk, err := s.Load()
	if err != nil || disk.Tokens.RefreshToken != "test-refresh-"+leak+"-2" || disk.Tokens.AccessToken != fresh {
		t.Errorf("auth.json after the retry = %+v, %v; want the refreshed tokens", disk, err)
	}
	if len(notices) != 2 || !strings.Contains(notices[1], "saved now") {
		t.Errorf("notices = %q; want a second saying the login is saved now", notices)
	}
}

// fullDisk is a disk with room for the first room bytes written through
// it while full is set, as ENOSPC comes part-way through a write.
type fullDisk struct {
	mu   sync.Mutex
	full bool
	room int
}

func (d *fullDisk) set(full bool) { d.mu.Lock(); d.full = full; d.mu.Unlock() }

func (d *fullDisk) wrap(tmp io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.full || len(p) <= d.room {
			return tmp.Write(p)
		}
		n, _ := tmp.Write(p[:d.room])
		return n, &fs.PathError{Op: "write", Path: "auth.json.tmp", Err: syscall.ENOSPC}
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRefreshOnInjectedFullDisk: the same refresh, with the disk full
// part-way through writing the new auth.json (an injected ENOSPC in the
// temporary file's write, which then takes atomicfile's failure path), on
// every platform and without root.
func TestRefreshOnInjectedFullDisk(t *testing.T) {
	d := &fullDisk{room: 100}
	s := auth.NewStore(t.TempDir(), &auth.StoreOptions{WriteFile: atomicfile.Writer{Wrap: d.wrap}.Write})
	refreshOnFullDisk(t, s, func() { d.set(true) }, func() { d.set(false) })
}
