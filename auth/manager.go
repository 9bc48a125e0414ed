package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Refresh policy of ChatGPT tokens, as in the reference client.
const (
	// RefreshWindow: an access token expiring within it is refreshed before use.
	RefreshWindow = 5 * time.Minute
	// RefreshInterval: a token without an expiry is refreshed once it is this old.
	RefreshInterval = 8 * 24 * time.Hour
)

// ManagerOptions configure a [Manager].
type ManagerOptions struct {
	// Store is where auth.json lives (required).
	Store *Store
	// Endpoints say where refreshes go; zero fields take the defaults.
	Endpoints Endpoints
	// HTTPClient calls the token endpoint; default http.DefaultClient.
	HTTPClient *http.Client
	// Now is the clock deciding when a token is stale; default time.Now.
	Now func() time.Time
	// Notice tells the user something they should know (refreshed tokens
	// that could not be saved, and when they finally are); nil drops it.
	Notice func(msg string)
}

// Manager holds the credentials saved by `agent login` in auth.json: an
// API key, or ChatGPT tokens that it refreshes. It is safe for concurrent
// use. Refreshes are single-flight inside the process and, through the
// store's file lock, across processes: whoever takes the lock second finds
// the fresh tokens on disk and does not spend the rotating refresh token
// again.
type Manager struct {
	opts ManagerOptions
	sem  chan struct{} // one renewal at a time, ctx-aware

	mu   sync.Mutex
	file *File
	// failedFor is the refresh token the endpoint refused, and failErr
	// why: permanent failures are not asked again.
	failedFor string
	failErr   error
	// unsaved are refreshed tokens that could not be saved (a full disk):
	// they are used from memory, and saving them is retried. spent is the
	// refresh token they replaced, which auth.json still holds.
	unsaved *File
	spent   string
}

// NewManager returns a Manager starting from f, as loaded from opts.Store.
func NewManager(f *File, opts ManagerOptions) *Manager {
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Endpoints = opts.Endpoints.WithDefaults()
	return &Manager{opts: opts, sem: make(chan struct{}, 1), file: f.clone()}
}

// LoadManager loads auth.json from opts.Store. It returns [ErrNotLoggedIn]
// or a [*CorruptFileError] when there is no usable file.
func LoadManager(opts ManagerOptions) (*Manager, error) {
	f, err := opts.Store.Load()
	if err != nil {
		return nil, err
	}
	return NewManager(f, opts), nil
}

// Mode returns ModeAPIKey or ModeChatGPT.
func (m *Manager) Mode() string { return m.current().Mode() }

// File returns a copy of the current credentials.
func (m *Manager) File() *File { return m.current().clone() }

func (m *Manager) current() *File {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.file
}

func (m *Manager) set(f *File) {
	m.mu.Lock()
	m.file = f
	m.mu.Unlock()
}

// secret returns what f sends as the bearer token.
func secret(f *File) string {
	if f.Mode() == ModeAPIKey {
		return f.APIKey()
	}
	return f.Tokens.AccessToken
}

// bearer returns the token of an Authorization header in h.
func bearer(h http.Header) string {
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

// stale reports whether f's ChatGPT tokens should be refreshed before use.
func (m *Manager) stale(f *File) bool {
	if f.Mode() != ModeChatGPT {
		return false
	}
	now := m.opts.Now()
	if exp := parseClaims(f.Tokens.AccessToken).Expires; !exp.IsZero() {
		return !exp.After(now.Add(RefreshWindow))
	}
	return f.LastRefresh != nil && now.Sub(*f.LastRefresh) > RefreshInterval
}

// Apply sets the Authorization header, and ChatGPT-Account-ID in ChatGPT
// mode, on h. A ChatGPT access token about to expire is refreshed first;
// if that fails transiently while the token is still valid, the token is
// used as is. It returns a [*RefreshTokenFailedError] when the login must
// be renewed by hand, or a retryable [*RefreshError].
func (m *Manager) Apply(ctx context.Context, h http.Header) error {
	m.retrySave(ctx)
	f := m.current()
	if m.stale(f) {
		err := m.renew(ctx, f.Tokens.AccessToken)
		var transient *RefreshError
		if errors.As(err, &transient) && parseClaims(f.Tokens.AccessToken).Expires.After(m.opts.Now()) {
			err = nil
		}
		if err != nil {
			return err
		}
		f = m.current()
	}
	if s := secret(f); s != "" {
		h.Set("Authorization", "Bearer "+s)
	}
	if id := f.AccountID(); id != "" && f.Mode() == ModeChatGPT {
		h.Set("ChatGPT-Account-ID", id)
	}
	return nil
}

// Reload is the first step after a 401 on a request authenticated with
// sent: it re-reads auth.json, which another process (a refresh, or a new
// `agent login`) may have changed, and reports whether its credentials
// differ from those sent. A file that is gone, or holds another account or
// login mode, is a [*RefreshTokenFailedError].
func (m *Manager) Reload(ctx context.Context, sent http.Header) (retry bool, err error) {
	f, err := m.reload()
	if err != nil {
		return false, err
	}
	return secret(f) != bearer(sent), nil
}

// Refresh is the second step after a 401 on a request authenticated with
// sent: in ChatGPT mode it refreshes the tokens (unless someone already
// did) and reports that the request may be retried. API keys cannot be
// refreshed: it reports false.
func (m *Manager) Refresh(ctx context.Context, sent http.Header) (retry bool, err error) {
	if m.current().Mode() != ModeChatGPT {
		return false, nil
	}
	if err := m.renew(ctx, bearer(sent)); err != nil {
		return false, err
	}
	return true, nil
}

// reload re-reads auth.json and adopts it if it holds the same login.
func (m *Manager) reload() (*File, error) {
	disk, err := m.opts.Store.Load()
	if errors.Is(err, ErrNotLoggedIn) {
		return nil, &RefreshTokenFailedError{Code: "logged_out"}
	}
	if err != nil {
		return nil, err
	}
	cur := m.current()
	if disk.Mode() != cur.Mode() || disk.AccountID() != cur.AccountID() {
		return nil, &RefreshTokenFailedError{Code: "account_changed"}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unsaved != nil {
		if disk.Tokens.RefreshToken == m.spent {
			// auth.json still holds what the unsaved tokens replaced:
			// they are the newer ones.
			return m.unsaved, nil
		}
		m.unsaved, m.spent = nil, "" // someone saved a newer login since
	}
	m.file = disk
	return disk, nil
}

// save saves next, the tokens that replaced the refresh token spent, with
// the store's lock held. When it fails the tokens stay in use from memory,
// the user is told once, and saving is retried ([Manager.retrySave]).
func (m *Manager) save(next *File, spent string) {
	err := m.opts.Store.Save(next)
	m.mu.Lock()
	first := m.unsaved == nil
	if err != nil {
		m.unsaved, m.spent = next, spent
	} else {
		m.unsaved, m.spent = nil, ""
	}
	m.mu.Unlock()
	switch {
	case err != nil && first:
		m.notice(fmt.Sprintf("the refreshed login could not be saved to %s (%v): it is used for this run and saving "+
			"is retried; if it is never saved, the next run will need `agent login`", m.opts.Store.Location(), err))
	case err == nil && !first:
		m.notice("the refreshed login is saved now, to " + m.opts.Store.Location())
	}
}

// retrySave tries again to save refreshed tokens that could not be saved,
// unless auth.json has changed since (another login wins).
func (m *Manager) retrySave(ctx context.Context) {
	m.mu.Lock()
	pending := m.unsaved != nil
	m.mu.Unlock()
	if !pending {
		return
	}
	unlock, err := m.opts.Store.Lock(ctx)
	if err != nil {
		return
	}
	defer unlock()
	disk, err := m.opts.Store.Load()
	if err != nil && !errors.Is(err, ErrNotLoggedIn) {
		return
	}
	m.mu.Lock()
	next, spent := m.unsaved, m.spent
	if next != nil && disk != nil && disk.Tokens.RefreshToken != spent {
		m.unsaved, m.spent, next = nil, "", nil
	}
	m.mu.Unlock()
	if next != nil {
		m.save(next, spent)
	}
}

func (m *Manager) notice(msg string) {
	if m.opts.Notice != nil {
		m.opts.Notice(msg)
	}
}

// renew makes the tokens move past sentAccess, the access token a request
// used: it returns as soon as fresher tokens are found (in memory, from a
// renewal by another goroutine, or on disk, from another process), and
// otherwise refreshes them at the token endpoint and saves them, under
// the store's lock.
func (m *Manager) renew(ctx context.Context, sentAccess string) error {
	select {
	case m.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-m.sem }()
	if f := m.current(); f.Tokens.AccessToken != sentAccess && !m.stale(f) {
		return nil
	}
	unlock, err := m.opts.Store.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	disk, err := m.reload()
	if err != nil {
		return err
	}
	if disk.Tokens.AccessToken != sentAccess && !m.stale(disk) {
		return nil
	}
	m.mu.Lock()
	failedFor, failErr := m.failedFor, m.failErr
	m.mu.Unlock()
	if failErr != nil && failedFor == disk.Tokens.RefreshToken {
		return failErr
	}
	if disk.Tokens.RefreshToken == "" {
		return &RefreshTokenFailedError{Code: "no_refresh_token"}
	}
	tr, err := refreshTokens(ctx, m.opts.HTTPClient, m.opts.Endpoints, disk.Tokens.RefreshToken)
	var permanent *RefreshTokenFailedError
	if errors.As(err, &permanent) {
		m.mu.Lock()
		m.failedFor, m.failErr = disk.Tokens.RefreshToken, err
		m.mu.Unlock()
	}
	if err != nil {
		return err
	}
	next := disk.clone()
	next.Tokens.AccessToken = tr.AccessToken
	if tr.IDToken != "" {
		next.Tokens.IDToken = tr.IDToken
	}
	if tr.RefreshToken != "" {
		next.Tokens.RefreshToken = tr.RefreshToken
	}
	now := m.opts.Now().UTC()
	next.LastRefresh = &now
	// The refresh token is spent: the new tokens are used whether or not
	// they can be saved.
	m.set(next)
	m.save(next, disk.Tokens.RefreshToken)
	return nil
}
