package auth_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/auth"
)

type loginResult struct {
	f   *auth.File
	err error
}

// startBrowserLogin runs LoginBrowser in the background and returns the
// authorize URL it shows and where its result arrives.
func startBrowserLogin(t *testing.T, opts auth.LoginOptions) (string, <-chan loginResult) {
	t.Helper()
	urls := make(chan string, 1)
	done := make(chan loginResult, 1)
	go func() {
		f, err := auth.LoginBrowser(t.Context(), opts, func(u string) { urls <- u })
		done <- loginResult{f, err}
	}()
	select {
	case u := <-urls:
		return u, done
	case r := <-done:
		t.Fatalf("LoginBrowser ended before showing a URL: %v", r.err)
	}
	return "", nil
}

// browser is what the test uses to play the user's browser.
func browser(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLoginBrowser plays the browser: it opens the authorize URL, which
// the fake issuer redirects to the local callback with a code; the
// callback trades it with the PKCE verifier, which the fake token
// endpoint checks against the challenge.
func TestLoginBrowser(t *testing.T) {
	iss := newFakeIssuer(t)
	s := auth.NewStore(t.TempDir(), nil)
	authURL, done := startBrowserLogin(t, auth.LoginOptions{
		Store:        s,
		Endpoints:    auth.Endpoints{Issuer: iss.URL()},
		CallbackAddr: "127.0.0.1:0",
		Now:          func() time.Time { return t0 },
	})
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Path != "/oauth/authorize" || q.Get("client_id") != auth.DefaultClientID || q.Get("code_challenge_method") != "S256" ||
		q.Get("state") == "" || len(q.Get("code_challenge")) != 43 || !strings.HasPrefix(q.Get("redirect_uri"), "http://localhost:") ||
		!strings.Contains(q.Get("scope"), "offline_access") {
		t.Errorf("authorize URL = %s", authURL)
	}
	status, body := get(t, browser(t), authURL)
	if status != http.StatusOK || !strings.Contains(body, "Signed in") {
		t.Errorf("callback page = %d %q", status, body)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	saved, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.f, saved); diff != "" {
		t.Errorf("saved file differs (-returned +saved):\n%s", diff)
	}
	if saved.Mode() != auth.ModeChatGPT || saved.AccountID() != "acct-1234567890" || saved.Email() != "user@example.com" ||
		saved.Tokens.RefreshToken != "test-refresh-"+leak+"-1" || !saved.LastRefresh.Equal(t0) || iss.exchanges != 1 {
		t.Errorf("saved = %+v %+v", saved, saved.Tokens)
	}
}

func TestLoginBrowserRejectsWrongState(t *testing.T) {
	iss := newFakeIssuer(t)
	s := auth.NewStore(t.TempDir(), nil)
	authURL, done := startBrowserLogin(t, auth.LoginOptions{
		Store: s, Endpoints: auth.Endpoints{Issuer: iss.URL()}, CallbackAddr: "127.0.0.1:0",
	})
	u, _ := url.Parse(authURL)
	cb := u.Query().Get("redirect_uri") + "?code=code-1&state=forged"
	if status, _ := get(t, browser(t), cb); status != http.StatusBadRequest {
		t.Errorf("forged callback = %d; want 400", status)
	}
	if r := <-done; r.err == nil || !strings.Contains(r.err.Error(), "state") {
		t.Errorf("LoginBrowser = %v; want a state error", r.err)
	}
	if _, err := s.Load(); !errors.Is(err, auth.ErrNotLoggedIn) {
		t.Errorf("a failed login saved something: %v", err)
	}
}

func TestLoginBrowserCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	_, err := auth.LoginBrowser(ctx, auth.LoginOptions{Store: auth.NewStore(t.TempDir(), nil), CallbackAddr: "127.0.0.1:0"},
		func(string) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("LoginBrowser = %v; want context.Canceled", err)
	}
}

// TestLoginBrowserPortFallback: when the default port is taken, the
// callback server listens on a free one.
func TestLoginBrowserPortFallback(t *testing.T) {
	if ln, err := net.Listen("tcp", auth.DefaultCallbackAddr); err == nil {
		defer ln.Close()
	}
	ctx, cancel := context.WithCancel(t.Context())
	var redirect string
	_, err := auth.LoginBrowser(ctx, auth.LoginOptions{Store: auth.NewStore(t.TempDir(), nil)}, func(u string) {
		p, _ := url.Parse(u)
		redirect = p.Query().Get("redirect_uri")
		cancel()
	})
	if !errors.Is(err, context.Canceled) || redirect == "" || strings.Contains(redirect, ":1455/") {
		t.Errorf("redirect_uri = %q (err %v); want a port other than 1455", redirect, err)
	}
}

func TestLoginDevice(t *testing.T) {
	iss := newFakeIssuer(t)
	iss.pending = 2
	s := auth.NewStore(t.TempDir(), nil)
	var sleeps []time.Duration
	var shownURL, shownCode string
	f, err := auth.LoginDevice(t.Context(), auth.LoginOptions{
		Store:     s,
		Endpoints: auth.Endpoints{Issuer: iss.URL()},
		Sleep: func(ctx context.Context, d time.Duration) error {
			sleeps = append(sleeps, d)
			return nil
		},
	}, func(u, code string) { shownURL, shownCode = u, code })
	if err != nil {
		t.Fatal(err)
	}
	if shownURL != iss.URL()+"/codex/device" || shownCode != "ABCD-1234" {
		t.Errorf("shown %q %q", shownURL, shownCode)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second}, sleeps); diff != "" {
		t.Errorf("poll waits (-want +got):\n%s", diff)
	}
	if saved, err := s.Load(); err != nil || saved.AccountID() != "acct-1234567890" || f.Tokens.AccessToken != saved.Tokens.AccessToken {
		t.Errorf("saved = %v, %v", saved, err)
	}
	if iss.exchanges != 1 || iss.polls != 3 {
		t.Errorf("%d exchanges, %d polls; want 1, 3", iss.exchanges, iss.polls)
	}
}

func TestLoginDeviceExpires(t *testing.T) {
	iss := newFakeIssuer(t)
	iss.pending = 1 << 30
	var waited time.Duration
	_, err := auth.LoginDevice(t.Context(), auth.LoginOptions{
		Store:     auth.NewStore(t.TempDir(), nil),
		Endpoints: auth.Endpoints{Issuer: iss.URL()},
		Sleep: func(ctx context.Context, d time.Duration) error {
			waited += d
			return nil
		},
	}, func(string, string) {})
	if !errors.Is(err, auth.ErrDeviceCodeExpired) || waited != auth.DeviceCodeLifetime {
		t.Errorf("LoginDevice = %v after %v of waits; want ErrDeviceCodeExpired after 15m", err, waited)
	}
}

func TestLoginForcedWorkspace(t *testing.T) {
	iss := newFakeIssuer(t)
	s := auth.NewStore(t.TempDir(), nil)
	_, err := auth.LoginDevice(t.Context(), auth.LoginOptions{
		Store: s, Endpoints: auth.Endpoints{Issuer: iss.URL()}, ForcedWorkspaceID: "acct-corp",
	}, func(string, string) {})
	var we *auth.WorkspaceError
	if !errors.As(err, &we) || we.Got != "acct-1234567890" {
		t.Errorf("LoginDevice = %v; want a *WorkspaceError", err)
	}
	if _, err := s.Load(); !errors.Is(err, auth.ErrNotLoggedIn) {
		t.Errorf("a refused login was saved: %v", err)
	}
}
