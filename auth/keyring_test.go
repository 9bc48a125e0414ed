package auth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOSKeyringUnreachable: with no D-Bus session (as on this CI machine)
// the real OS keyring cannot be reached; "keyring" is then a clear error
// and nothing is written to a file, "auto" falls back to auth.json with a
// notice.
func TestOSKeyringUnreachable(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		t.Skip("a D-Bus session is configured: the OS keyring may be reachable")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	dir := t.TempDir()
	s, _, err := OpenStore(dir, StoreKeyring, nil)
	if !errors.Is(err, ErrKeyringUnavailable) || !strings.Contains(err.Error(), `cli_auth_credentials_store = "keyring"`) {
		t.Fatalf("OpenStore(keyring) = %v; want ErrKeyringUnavailable naming the key", err)
	}
	key := "sk-test-canary-0000"
	if err := s.Save(&File{AuthMode: ModeAPIKey, OpenAIAPIKey: &key}); !errors.Is(err, ErrKeyringUnavailable) {
		t.Errorf("Save = %v; want ErrKeyringUnavailable", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
		t.Error("keyring store wrote auth.json")
	}
	s, notice, err := OpenStore(dir, StoreAuto, nil)
	if err != nil || !strings.Contains(notice, "using "+filepath.Join(dir, FileName)) {
		t.Fatalf("OpenStore(auto) = %v, notice %q", err, notice)
	}
	if err := s.Save(&File{AuthMode: ModeAPIKey, OpenAIAPIKey: &key}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Errorf("auto did not fall back to auth.json: %v", err)
	}
}

// TestEphemeralStore: credentials live in the store's memory only.
func TestEphemeralStore(t *testing.T) {
	dir := t.TempDir()
	s, _, err := OpenStore(dir, StoreEphemeral, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := "sk-test-canary-0000"
	if err := s.Save(&File{AuthMode: ModeAPIKey, OpenAIAPIKey: &key}); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Load(); err != nil || f.APIKey() != key {
		t.Errorf("Load = %v, %v", f, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("ephemeral store wrote %v", entries)
	}
	other, _, _ := OpenStore(dir, StoreEphemeral, nil)
	if _, err := other.Load(); !errors.Is(err, ErrNotLoggedIn) {
		t.Errorf("another store (process) sees the credentials: %v", err)
	}
}
