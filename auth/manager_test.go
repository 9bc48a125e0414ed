package auth_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
)

// t0 is the fake "now" of the manager tests.
var t0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

// chatGPTHome saves a ChatGPT login whose access token expires at exp and
// returns the store.
func chatGPTHome(t *testing.T, exp time.Time) *auth.Store {
	t.Helper()
	s := auth.NewStore(t.TempDir(), nil)
	last := t0.Add(-time.Hour)
	err := s.Save(&auth.File{
		AuthMode: auth.ModeChatGPT,
		Tokens: &auth.Tokens{
			IDToken:      idToken("acct-1234567890", "user@example.com"),
			AccessToken:  accessToken("acct-1234567890", exp, 0),
			RefreshToken: "test-refresh-" + leak + "-1",
			AccountID:    "acct-1234567890",
		},
		LastRefresh: &last,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newManager(t *testing.T, s *auth.Store, iss *fakeIssuer) *auth.Manager {
	t.Helper()
	iss.now = func() time.Time { return t0 }
	m, err := auth.LoadManager(auth.ManagerOptions{
		Store:     s,
		Endpoints: auth.Endpoints{Issuer: iss.URL()},
		Now:       func() time.Time { return t0 },
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func apply(t *testing.T, m *auth.Manager) (http.Header, error) {
	t.Helper()
	h := http.Header{}
	err := m.Apply(t.Context(), h)
	return h, err
}

func TestManagerProactiveRefresh(t *testing.T) {
	tests := []struct {
		name    string
		exp     time.Time
		refresh bool
	}{
		{"valid for an hour", t0.Add(time.Hour), false},
		{"expires within 5 minutes", t0.Add(4 * time.Minute), true},
		{"expired", t0.Add(-time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iss := newFakeIssuer(t)
			s := chatGPTHome(t, tt.exp)
			m := newManager(t, s, iss)
			before := m.File().Tokens.AccessToken
			h, err := apply(t, m)
			if err != nil {
				t.Fatal(err)
			}
			if got := iss.count(); got != map[bool]int{false: 0, true: 1}[tt.refresh] {
				t.Fatalf("%d refreshes; want refresh=%v", got, tt.refresh)
			}
			want := before
			if tt.refresh {
				want = m.File().Tokens.AccessToken
				if want == before {
					t.Fatal("the access token did not change")
				}
				disk, _ := s.Load()
				if disk.Tokens.AccessToken != want || disk.Tokens.RefreshToken != "test-refresh-"+leak+"-2" ||
					!disk.LastRefresh.Equal(t0) || disk.Tokens.IDToken == "" {
					t.Errorf("saved tokens = %+v, last_refresh %v", disk.Tokens, disk.LastRefresh)
				}
			}
			if h.Get("Authorization") != "Bearer "+want || h.Get("ChatGPT-Account-ID") != "acct-1234567890" {
				t.Errorf("headers = %v", h)
			}
		})
	}
}

func TestManagerRefreshWithoutExpiry(t *testing.T) {
	for _, age := range []time.Duration{7 * 24 * time.Hour, 9 * 24 * time.Hour} {
		iss := newFakeIssuer(t)
		s := auth.NewStore(t.TempDir(), nil)
		last := t0.Add(-age)
		if err := s.Save(&auth.File{AuthMode: auth.ModeChatGPT, LastRefresh: &last, Tokens: &auth.Tokens{
			AccessToken: "opaque-access-" + leak, RefreshToken: "test-refresh-" + leak,
		}}); err != nil {
			t.Fatal(err)
		}
		m := newManager(t, s, iss)
		if _, err := apply(t, m); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 1}[age > 8*24*time.Hour]; iss.count() != want {
			t.Errorf("last refresh %v ago: %d refreshes; want %d", age, iss.count(), want)
		}
	}
}

// TestManagerRefreshSingleFlight: concurrent 401s in one process spend
// the refresh token once.
func TestManagerRefreshSingleFlight(t *testing.T) {
	iss := newFakeIssuer(t)
	m := newManager(t, chatGPTHome(t, t0.Add(time.Hour)), iss)
	sent, _ := apply(t, m)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if retry, err := m.Refresh(t.Context(), sent); !retry || err != nil {
				t.Errorf("Refresh = %v, %v", retry, err)
			}
		})
	}
	wg.Wait()
	if n := iss.count(); n != 1 {
		t.Errorf("%d refreshes; want 1", n)
	}
}

// TestManagerSecondProcessUsesDisk: a second manager on the same home (as
// another process would be) that gets a 401 with the old token finds the
// fresh tokens on disk and does not spend the rotated refresh token.
func TestManagerSecondProcessUsesDisk(t *testing.T) {
	iss := newFakeIssuer(t)
	s := chatGPTHome(t, t0.Add(time.Hour))
	a, b, c := newManager(t, s, iss), newManager(t, s, iss), newManager(t, s, iss)
	sentA, _ := apply(t, a)
	sentB, _ := apply(t, b)
	sentC, _ := apply(t, c)
	if _, err := a.Refresh(t.Context(), sentA); err != nil {
		t.Fatal(err)
	}
	// Step 1 (reload) sees the change...
	if retry, err := b.Reload(t.Context(), sentB); !retry || err != nil {
		t.Errorf("Reload = %v, %v; want a retry with the tokens on disk", retry, err)
	}
	// ...and a refresh without it finds them under the lock.
	if retry, err := c.Refresh(t.Context(), sentC); !retry || err != nil {
		t.Errorf("Refresh = %v, %v", retry, err)
	}
	if n := iss.count(); n != 1 {
		t.Errorf("%d refreshes; want 1", n)
	}
	for _, m := range []*auth.Manager{b, c} {
		if h, _ := apply(t, m); h.Get("Authorization") != "Bearer "+a.File().Tokens.AccessToken {
			t.Error("another manager does not use the refreshed token")
		}
	}
}

func TestManagerReload(t *testing.T) {
	iss := newFakeIssuer(t)
	s := chatGPTHome(t, t0.Add(time.Hour))
	m := newManager(t, s, iss)
	sent, _ := apply(t, m)
	if retry, err := m.Reload(t.Context(), sent); retry || err != nil {
		t.Errorf("Reload of an unchanged file = %v, %v; want false, nil", retry, err)
	}
	// Another login for another account: the session must not switch.
	f, _ := s.Load()
	f.Tokens.AccountID = "acct-other-0000"
	if err := s.Save(f); err != nil {
		t.Fatal(err)
	}
	var rf *auth.RefreshTokenFailedError
	if _, err := m.Reload(t.Context(), sent); !errors.As(err, &rf) || rf.Code != "account_changed" {
		t.Errorf("Reload after an account change = %v", err)
	}
	if _, err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Reload(t.Context(), sent); !errors.As(err, &rf) || rf.Code != "logged_out" {
		t.Errorf("Reload after logout = %v", err)
	}
}

func TestManagerRefreshFailures(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		permanent bool
		code      string
	}{
		{"reused", 401, `{"error":{"code":"refresh_token_reused","message":"already used"}}`, true, "refresh_token_reused"},
		{"expired (string error)", 401, `{"error":"refresh_token_expired"}`, true, "refresh_token_expired"},
		{"invalidated (top-level code)", 401, `{"code":"refresh_token_invalidated"}`, true, "refresh_token_invalidated"},
		{"any 401", 401, `not json`, true, ""},
		{"server error", 503, `{}`, false, ""},
		{"rate limited", 429, `{}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iss := newFakeIssuer(t)
			iss.failStatus, iss.failBody = tt.status, tt.body
			m := newManager(t, chatGPTHome(t, t0.Add(time.Hour)), iss)
			sent, _ := apply(t, m)
			retry, err := m.Refresh(t.Context(), sent)
			if retry || err == nil {
				t.Fatalf("Refresh = %v, %v; want an error", retry, err)
			}
			noSecret(t, "the error", err.Error())
			var rf *auth.RefreshTokenFailedError
			var re *auth.RefreshError
			switch {
			case tt.permanent:
				if !errors.As(err, &rf) || rf.Code != tt.code {
					t.Fatalf("err = %#v; want a *RefreshTokenFailedError with code %q", err, tt.code)
				}
				if !strings.Contains(err.Error(), "agent login") {
					t.Errorf("message %q does not say to log in", err)
				}
				// Cached: the refused token is not sent again.
				if _, err2 := m.Refresh(t.Context(), sent); !errors.Is(err2, err) || iss.count() != 1 {
					t.Errorf("second Refresh = %v after %d calls; want the cached failure", err2, iss.count())
				}
			default:
				if !errors.As(err, &re) || re.StatusCode != tt.status {
					t.Fatalf("err = %#v; want a *RefreshError", err)
				}
			}
		})
	}
}

// TestManagerTransientProactiveFailure: a proactive refresh that cannot
// reach the endpoint keeps using a token that is still valid.
func TestManagerTransientProactiveFailure(t *testing.T) {
	iss := newFakeIssuer(t)
	iss.failStatus = 502
	m := newManager(t, chatGPTHome(t, t0.Add(2*time.Minute)), iss)
	if _, err := apply(t, m); err != nil {
		t.Errorf("Apply with a valid token and a failing endpoint = %v; want nil", err)
	}
	m2 := newManager(t, chatGPTHome(t, t0.Add(-time.Minute)), iss)
	var re *auth.RefreshError
	if _, err := apply(t, m2); !errors.As(err, &re) {
		t.Errorf("Apply with an expired token and a failing endpoint = %v; want a *RefreshError", err)
	}
}

func TestManagerAPIKeyMode(t *testing.T) {
	s := auth.NewStore(t.TempDir(), nil)
	key := "sk-test-" + leak + "-0001"
	if err := s.Save(&auth.File{AuthMode: auth.ModeAPIKey, OpenAIAPIKey: &key}); err != nil {
		t.Fatal(err)
	}
	m, err := auth.LoadManager(auth.ManagerOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := apply(t, m)
	if h.Get("Authorization") != "Bearer "+key || h.Get("ChatGPT-Account-ID") != "" {
		t.Errorf("headers = %v", h)
	}
	if retry, err := m.Refresh(t.Context(), h); retry || err != nil {
		t.Errorf("Refresh of an API key = %v, %v; want false, nil (never retried)", retry, err)
	}
	if retry, err := m.Reload(t.Context(), h); retry || err != nil {
		t.Errorf("Reload of an unchanged key = %v, %v", retry, err)
	}
}
