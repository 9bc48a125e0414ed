package auth_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
)

// TestSaveAPIKeyAndLogout: agent login --with-api-key's save is read back
// as an API key login; logout removes it, says where from, and a second
// logout says there was nothing to remove.
func TestSaveAPIKeyAndLogout(t *testing.T) {
	home := t.TempDir()
	s := auth.NewStore(home, nil)
	if err := s.SaveAPIKey(t.Context(), "sk-test-"+leak); err != nil {
		t.Fatal(err)
	}
	f, err := s.Load()
	if err != nil || f.Mode() != auth.ModeAPIKey || f.APIKey() != "sk-test-"+leak {
		t.Fatalf("Load after SaveAPIKey = %+v, %v", f, err)
	}
	line, err := s.Logout(t.Context())
	if want := "Logged out: removed " + filepath.Join(home, "auth.json"); err != nil || line != want {
		t.Fatalf("Logout = %q, %v; want %q", line, err, want)
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("auth.json after logout: %v", err)
	}
	if line, err := s.Logout(t.Context()); err != nil || line != "Not logged in: nothing to remove" {
		t.Errorf("second Logout = %q, %v", line, err)
	}
}

// TestLogoutRemovesUnreadableLogin: a corrupt auth.json cannot be loaded,
// and logout is how the user gets rid of it.
func TestLogoutRemovesUnreadableLogin(t *testing.T) {
	home := t.TempDir()
	s := auth.NewStore(home, nil)
	if err := os.WriteFile(s.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err == nil {
		t.Fatal("Load of a corrupt auth.json succeeded")
	}
	if line, err := s.Logout(t.Context()); err != nil || line != "Logged out: removed "+s.Path() {
		t.Fatalf("Logout = %q, %v", line, err)
	}
}

// TestLogoutWaitsForTheLock: while another process holds the credential
// lock (a refresh in flight, which would write the login back), neither
// logout nor a new key touches auth.json.
func TestLogoutWaitsForTheLock(t *testing.T) {
	home := t.TempDir()
	holder := auth.NewStore(home, nil)
	if err := holder.SaveAPIKey(t.Context(), "sk-old-"+leak); err != nil {
		t.Fatal(err)
	}
	unlock, err := holder.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	gaveUp := func(context.Context, time.Duration) error { return context.Canceled }
	s := auth.NewStore(home, &auth.StoreOptions{Sleep: gaveUp})
	if _, err := s.Logout(t.Context()); !errors.Is(err, context.Canceled) {
		t.Errorf("Logout while locked = %v; want it to wait (and give up)", err)
	}
	if err := s.SaveAPIKey(t.Context(), "sk-new-"+leak); !errors.Is(err, context.Canceled) {
		t.Errorf("SaveAPIKey while locked = %v; want it to wait (and give up)", err)
	}
	if f, err := s.Load(); err != nil || f.APIKey() != "sk-old-"+leak {
		t.Errorf("auth.json changed under the lock: %+v, %v", f, err)
	}
}

// TestAccount names a ChatGPT login by its masked account id and e-mail
// address, never a token.
func TestAccount(t *testing.T) {
	for _, c := range []struct {
		f    *auth.File
		want string
	}{
		{&auth.File{AuthMode: auth.ModeChatGPT, Tokens: &auth.Tokens{IDToken: idToken("acct-123456789012", "a@example.com"), AccessToken: leak}},
			"account acct-…9012, a@example.com"},
		{&auth.File{AuthMode: auth.ModeChatGPT, Tokens: &auth.Tokens{AccountID: "acct-123456789012", AccessToken: leak}}, "account acct-…9012"},
		{&auth.File{AuthMode: auth.ModeChatGPT, Tokens: &auth.Tokens{AccessToken: leak}}, ""},
		{&auth.File{}, ""},
	} {
		if got := c.f.Account(); got != c.want {
			t.Errorf("Account() = %q; want %q", got, c.want)
		}
	}
}
