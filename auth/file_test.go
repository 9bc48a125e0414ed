package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/filelock"
)

func TestStoreSaveLoad(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	s := auth.NewStore(home, nil)
	if _, err := s.Load(); !errors.Is(err, auth.ErrNotLoggedIn) {
		t.Fatalf("Load of a missing file = %v; want ErrNotLoggedIn", err)
	}
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	want := &auth.File{
		AuthMode: auth.ModeChatGPT,
		Tokens: &auth.Tokens{
			IDToken: idToken("acct-1", "a@example.com"), AccessToken: "access-" + leak,
			RefreshToken: "test-refresh-" + leak, AccountID: "acct-1",
		},
		LastRefresh: &at,
	}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	assertModes(t, home)
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 || entries[0].Name() != "auth.json" {
		t.Errorf("home holds %v; want only auth.json (no temporary file left)", entries)
	}
	// Codex's layout: OPENAI_API_KEY is always present (null here).
	var raw map[string]any
	data, _ := os.ReadFile(s.Path())
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"auth_mode", "OPENAI_API_KEY", "tokens", "last_refresh"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("auth.json lacks %q: %s", k, data)
		}
	}
	if f := got; f.AccountID() != "acct-1" || f.Email() != "a@example.com" {
		t.Errorf("account %q email %q", f.AccountID(), f.Email())
	}
}

// assertModes checks the permissions of home (0700) and auth.json (0600).
func assertModes(t *testing.T, home string) {
	t.Helper()
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("home mode = %v (%v); want 0700", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(filepath.Join(home, "auth.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode = %v (%v); want 0600", st.Mode().Perm(), err)
	}
}

func TestStoreTightensHome(t *testing.T) {
	home := t.TempDir()
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	key := "sk-" + leak + "-1234"
	if err := auth.NewStore(home, nil).Save(&auth.File{AuthMode: auth.ModeAPIKey, OpenAIAPIKey: &key}); err != nil {
		t.Fatal(err)
	}
	assertModes(t, home)
}

func TestStoreCorrupt(t *testing.T) {
	tests := []struct{ name, content string }{
		{"not json", `{"auth_mode": "chatgpt", "tokens": {"access_token": "x-` + leak},
		{"empty", ``},
		{"chatgpt without tokens", `{"auth_mode":"chatgpt","OPENAI_API_KEY":null}`},
		{"apikey without key", `{"auth_mode":"apikey","OPENAI_API_KEY":""}`},
		{"unknown mode", `{"auth_mode":"spaceship","OPENAI_API_KEY":"k"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			s := auth.NewStore(home, nil)
			if err := os.WriteFile(s.Path(), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			var ce *auth.CorruptFileError
			if !errors.As(err, &ce) || ce.Path != s.Path() {
				t.Fatalf("Load = %v; want a *CorruptFileError for %s", err, s.Path())
			}
			if msg := err.Error(); !strings.Contains(msg, s.Path()) || !strings.Contains(msg, "agent logout") {
				t.Errorf("message %q should name the file and say to run agent logout", msg)
			}
			noSecret(t, "the error", err.Error())
			removed, err := s.Remove()
			if !removed || err != nil {
				t.Errorf("Remove = %v, %v; want true, nil", removed, err)
			}
			if _, err := s.Load(); !errors.Is(err, auth.ErrNotLoggedIn) {
				t.Errorf("after Remove, Load = %v", err)
			}
		})
	}
}

func TestStoreLockExcludes(t *testing.T) {
	home := t.TempDir()
	var sleeps int
	a := auth.NewStore(home, nil)
	b := auth.NewStore(home, &auth.StoreOptions{Sleep: func(ctx context.Context, d time.Duration) error {
		sleeps++
		if sleeps == 3 {
			return context.Canceled // give up: a still holds it
		}
		return nil
	}})
	unlock, err := a.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(t.Context()); !errors.Is(err, context.Canceled) || sleeps != 3 {
		t.Fatalf("second Lock while held = %v after %d polls; want it to wait", err, sleeps)
	}
	unlock()
	unlockB, err := b.Lock(t.Context())
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlockB()
}

// TestStoreLockBounded: auth.json.lock held past any refresh (a stuck
// process, a stray flock) fails Lock after a bound, naming the lock file,
// rather than hanging every later request.
func TestStoreLockBounded(t *testing.T) {
	home := t.TempDir()
	a := auth.NewStore(home, nil)
	unlock, err := a.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var waited time.Duration
	b := auth.NewStore(home, &auth.StoreOptions{Sleep: func(_ context.Context, d time.Duration) error {
		waited += d
		return nil
	}})
	_, err = b.Lock(t.Context())
	var held *filelock.HeldError
	if !errors.As(err, &held) || held.Path != filepath.Join(home, "auth.json.lock") {
		t.Fatalf("Lock while held for ever = %v; want a HeldError naming auth.json.lock", err)
	}
	if want := 35 * time.Second; waited != want {
		t.Errorf("waited %v; want %v (one token call and the lock bound)", waited, want)
	}
}

// TestStoreLoadTightensFile: an auth.json readable by group or others is
// set to 0600 when it is loaded, with one notice; a private one is left
// alone, silently.
func TestStoreLoadTightensFile(t *testing.T) {
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o600, 0o400} {
		t.Run(mode.String(), func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, auth.FileName)
			if err := os.WriteFile(path, []byte(`{"OPENAI_API_KEY":"sk-test-0000"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			var notices []string
			s := auth.NewStore(home, &auth.StoreOptions{Notice: func(m string) { notices = append(notices, m) }})
			f, err := s.Load()
			if err != nil {
				t.Fatal(err)
			}
			if f.APIKey() != "sk-test-0000" {
				t.Errorf("key = %q", f.APIKey())
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			wantMode, wantNotices := mode, 0
			if mode&0o077 != 0 {
				wantMode, wantNotices = 0o600, 1
			}
			if st.Mode().Perm() != wantMode {
				t.Errorf("mode after Load = %v, want %v", st.Mode().Perm(), wantMode)
			}
			if len(notices) != wantNotices {
				t.Fatalf("notices = %q, want %d", notices, wantNotices)
			}
			if wantNotices == 1 {
				want := fmt.Sprintf("%s was accessible to others (mode %04o); tightened it to 0600", path, mode)
				if notices[0] != want {
					t.Errorf("notice = %q, want %q", notices[0], want)
				}
			}
		})
	}
}
