package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// fakeKeyring is an OS keyring in memory; down makes it unreachable, as a
// machine without a D-Bus Secret Service is.
type fakeKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	down    bool
}

func (k *fakeKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return "", errors.New("dbus: no session bus")
	}
	v, ok := k.entries[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (k *fakeKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return errors.New("dbus: no session bus")
	}
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"/"+user] = secret
	return nil
}

func (k *fakeKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return errors.New("dbus: no session bus")
	}
	if _, ok := k.entries[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(k.entries, service+"/"+user)
	return nil
}

// TestCredentialStores is the table of cli_auth_credentials_store: where
// `agent login --with-api-key` puts the key, and that exec then uses it.
func TestCredentialStores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		store      string
		down       bool
		wantCode   int
		wantFile   bool // auth.json written
		wantInRing bool
		wantStderr string
	}{
		{store: "file", wantFile: true, wantStderr: "auth.json"},
		{store: "keyring", wantInRing: true, wantStderr: "the OS keyring"},
		{store: "keyring", down: true, wantCode: exitcode.Auth, wantStderr: `cli_auth_credentials_store = "keyring": no OS keyring is reachable`},
		{store: "auto", wantInRing: true, wantStderr: "the OS keyring"},
		{store: "auto", down: true, wantFile: true, wantStderr: `cli_auth_credentials_store = "auto": no OS keyring is reachable; using`},
		{store: "ephemeral", wantStderr: "memory only"},
	}
	for _, tt := range tests {
		name := tt.store
		if tt.down {
			name += " unreachable"
		}
		t.Run(name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
			home := agenttest.LoginHome(t, srv, "")
			cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
			cfg = append([]byte("cli_auth_credentials_store = \""+tt.store+"\"\n"), cfg...)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			kr := &fakeKeyring{down: tt.down}
			r := runInHome(t, home, runOpts{stdin: fakeKey + "\n", keyring: kr}, "login", "--with-api-key")
			if r.code != tt.wantCode || !strings.Contains(r.stderr, tt.wantStderr) {
				t.Fatalf("login: exit %d stderr %q; want %d and %q", r.code, r.stderr, tt.wantCode, tt.wantStderr)
			}
			_, err := os.Stat(filepath.Join(home, "auth.json"))
			if gotFile := err == nil; gotFile != tt.wantFile {
				t.Errorf("auth.json written = %v, want %v", gotFile, tt.wantFile)
			}
			if inRing := len(kr.entries) == 1; inRing != tt.wantInRing {
				t.Errorf("keyring entries = %d", len(kr.entries))
			}
			for _, v := range kr.entries {
				if !strings.Contains(v, fakeKey) {
					t.Errorf("keyring entry lacks the key")
				}
			}
			if tt.wantCode != 0 || tt.store == "ephemeral" {
				// Nothing persisted: the next process is not logged in.
				r := runInHome(t, home, runOpts{keyring: kr}, "exec", "hi")
				if r.code != exitcode.Auth || len(srv.Requests()) != 0 {
					t.Errorf("exec after login: exit %d, %d requests; want 3 and none", r.code, len(srv.Requests()))
				}
				return
			}
			r = runInHome(t, home, runOpts{keyring: kr}, "exec", "hi")
			if r.code != 0 || srv.Requests()[0].Header.Get("Authorization") != "Bearer "+fakeKey {
				t.Errorf("exec with the saved key: exit %d stderr %s", r.code, r.stderr)
			}
			r = runInHome(t, home, runOpts{keyring: kr}, "logout")
			if r.code != 0 || len(kr.entries) != 0 {
				t.Errorf("logout: exit %d, %d keyring entries left", r.code, len(kr.entries))
			}
			if _, err := os.Stat(filepath.Join(home, "auth.json")); err == nil {
				t.Error("auth.json left after logout")
			}
		})
	}
}

// TestKeyringUnreachableWithAPIKeyInEnv: an unreachable keyring does not
// matter when the credentials come from the environment.
func TestKeyringUnreachableWithAPIKeyInEnv(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	home := agenttest.LoginHome(t, srv, "")
	cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	cfg = append([]byte("cli_auth_credentials_store = \"keyring\"\n"), cfg...)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runInHome(t, home, runOpts{keyring: &fakeKeyring{down: true}, env: map[string]string{"AGENT_API_KEY": fakeKey}}, "exec", "hi")
	if r.code != 0 || srv.Requests()[0].Header.Get("Authorization") != "Bearer "+fakeKey {
		t.Errorf("exit %d stderr %s", r.code, r.stderr)
	}
}

var _ auth.Keyring = (*fakeKeyring)(nil)
