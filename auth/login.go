package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// LoginOptions configure [LoginBrowser] and [LoginDevice].
type LoginOptions struct {
	// Store receives the new auth.json (required).
	Store *Store
	// Endpoints say where to log in; zero fields take the defaults.
	Endpoints Endpoints
	// HTTPClient calls the issuer; default http.DefaultClient.
	HTTPClient *http.Client
	// Now stamps last_refresh; default time.Now.
	Now func() time.Time
	// Originator is sent to the issuer; default "agent".
	Originator string
	// CallbackAddr is where the browser flow's callback server listens;
	// default [DefaultCallbackAddr], falling back to a free loopback port
	// when that one is taken.
	CallbackAddr string
	// ForcedWorkspaceID, when set, refuses a login to another ChatGPT
	// workspace (forced_chatgpt_workspace_id).
	ForcedWorkspaceID string
	// Sleep waits between device-code polls; default a timer that
	// honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o LoginOptions) withDefaults() LoginOptions {
	o.Endpoints = o.Endpoints.WithDefaults()
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Originator == "" {
		o.Originator = "agent"
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	return o
}

// oauthScope is what a ChatGPT login asks for, as the reference client.
const oauthScope = "openid profile email offline_access"

// WorkspaceError says the login is for another workspace than the forced one.
type WorkspaceError struct {
	Want, Got string
}

func (e *WorkspaceError) Error() string {
	return fmt.Sprintf("auth: this login is for workspace %q, but forced_chatgpt_workspace_id is %q", e.Got, e.Want)
}

// finish checks and saves the tokens of a completed login, under the
// store's lock so that a refresh in flight elsewhere cannot overwrite them.
func finish(ctx context.Context, o LoginOptions, tr *tokenResponse) (*File, error) {
	f := chatGPTFile(tr, o.Now())
	if w := o.ForcedWorkspaceID; w != "" && f.AccountID() != w {
		return nil, &WorkspaceError{Want: w, Got: f.AccountID()}
	}
	unlock, err := o.Store.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := o.Store.Save(f); err != nil {
		return nil, err
	}
	return f, nil
}

// randomURLString returns n random bytes, base64url-encoded.
func randomURLString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkce returns a PKCE verifier and its S256 challenge (RFC 7636).
func pkce() (verifier, challenge string) {
	verifier = randomURLString(64)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// listenCallback listens on addr; on the default address, a port in use
// falls back to a free one.
func listenCallback(addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultCallbackAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && addr == DefaultCallbackAddr {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: login callback server: %w", err)
	}
	return ln, nil
}

type loginResult struct {
	f   *File
	err error
}

// LoginBrowser runs the ChatGPT browser login: the authorization-code flow
// with PKCE (S256) and a callback server on loopback. It calls show with
// the URL the user must open, then waits until the issuer redirects the
// browser back with a code (or ctx is done), trades the code for tokens and
// saves them in auth.json. The callback server is shut down before it
// returns.
func LoginBrowser(ctx context.Context, opts LoginOptions, show func(authURL string)) (*File, error) {
	o := opts.withDefaults()
	ln, err := listenCallback(o.CallbackAddr)
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	redirectURI := fmt.Sprintf("http://localhost:%d/auth/callback", port)
	verifier, challenge := pkce()
	state := randomURLString(32)
	q := url.Values{
		"response_type":              {"code"},
		"client_id":                  {o.Endpoints.ClientID},
		"redirect_uri":               {redirectURI},
		"scope":                      {oauthScope},
		"code_challenge":             {challenge},
		"code_challenge_method":      {"S256"},
		"id_token_add_organizations": {"true"},
		"codex_cli_simplified_flow":  {"true"},
		"state":                      {state},
		"originator":                 {o.Originator},
	}
	authURL := o.Endpoints.Issuer + "/oauth/authorize?" + q.Encode()

	results := make(chan loginResult, 1)
	done := func(r loginResult) {
		select {
		case results <- r:
		default: // the first answer wins
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/auth/callback", func(w http.ResponseWriter, r *http.Request) {
		f, err := callback(ctx, o, r.URL.Query(), state, redirectURI, verifier)
		if err != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<p>Login failed: %s</p><p>Return to the terminal.</p>\n", html.EscapeString(err.Error()))
			done(loginResult{err: err})
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<p>Signed in to agent. You can close this tab.</p>\n")
		done(loginResult{f: f})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		wg.Wait()
	}()

	show(authURL)
	select {
	case r := <-results:
		return r.f, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callback handles the issuer's redirect: it checks state, trades the code
// for tokens with the PKCE verifier and saves them.
func callback(ctx context.Context, o LoginOptions, q url.Values, state, redirectURI, verifier string) (*File, error) {
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		return nil, fmt.Errorf("auth: the issuer refused the login: %s", msg)
	}
	if q.Get("state") != state {
		return nil, errors.New("auth: login callback with a wrong state; start `agent login` again")
	}
	code := q.Get("code")
	if code == "" {
		return nil, errors.New("auth: login callback without a code")
	}
	tr, err := exchangeCode(ctx, o.HTTPClient, o.Endpoints, code, redirectURI, verifier)
	if err != nil {
		return nil, err
	}
	return finish(ctx, o, tr)
}
