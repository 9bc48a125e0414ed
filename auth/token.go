package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// tokenTimeout bounds one call to the token endpoint.
const tokenTimeout = 30 * time.Second

// RefreshTokenFailedError says the ChatGPT login cannot be renewed: the
// token endpoint refused the refresh token (any 401), or auth.json no
// longer holds the login this process started with. Asking again cannot
// help; the user must log in again.
type RefreshTokenFailedError struct {
	// Code is the token endpoint's error code (refresh_token_expired,
	// refresh_token_reused, refresh_token_invalidated, ...), or one of
	// "logged_out" and "account_changed" when auth.json changed under us.
	Code string
}

func (e *RefreshTokenFailedError) Error() string {
	var why string
	switch e.Code {
	case "refresh_token_expired":
		why = "your ChatGPT login has expired"
	case "refresh_token_reused":
		why = "your access token could not be refreshed because your refresh token was already used"
	case "refresh_token_invalidated":
		why = "your ChatGPT login was revoked"
	case "logged_out":
		why = "you have logged out since this session started"
	case "account_changed":
		return "auth: auth.json now holds another login than the one this session started with; start agent again to use it"
	default:
		why = "your access token could not be refreshed"
		if e.Code != "" {
			why += " (" + e.Code + ")"
		}
	}
	return "auth: " + why + "; run `agent login` to sign in again"
}

// RefreshError is a failure to reach the token endpoint, or an answer
// from it that may differ next time (5xx, 429, ...). It is retryable.
type RefreshError struct {
	// StatusCode is the endpoint's answer, or 0 when there was none.
	StatusCode int
	Err        error
}

func (e *RefreshError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("auth: refresh access token: http %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	return "auth: refresh access token: " + e.Err.Error()
}

func (e *RefreshError) Unwrap() error { return e.Err }

// tokenResponse is the token endpoint's answer; absent fields are empty.
type tokenResponse struct {
	IDToken      string `json:"id_token"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// refreshTokens spends refreshToken at the token endpoint, as the
// reference client does: a JSON body with client_id, grant_type and
// refresh_token.
func refreshTokens(ctx context.Context, hc *http.Client, ep Endpoints, refreshToken string) (*tokenResponse, error) {
	body, err := json.Marshal(map[string]string{
		"client_id":     ep.ClientID,
		"grant_type":    "refresh_token",
		"refresh_token": refreshToken,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.TokenURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("auth: token url: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &RefreshError{Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, &RefreshTokenFailedError{Code: errorCode(data)}
	case resp.StatusCode == http.StatusBadRequest && isRefreshTokenCode(errorCode(data)):
		return nil, &RefreshTokenFailedError{Code: errorCode(data)}
	case resp.StatusCode != http.StatusOK:
		return nil, &RefreshError{StatusCode: resp.StatusCode, Err: errors.New(resp.Status)}
	case err != nil:
		return nil, &RefreshError{Err: err}
	}
	var tr tokenResponse
	if err := json.Unmarshal(data, &tr); err != nil || tr.AccessToken == "" {
		return nil, &RefreshError{StatusCode: resp.StatusCode, Err: errors.New("token endpoint answered without an access token")}
	}
	return &tr, nil
}

func isRefreshTokenCode(c string) bool {
	return c == "refresh_token_expired" || c == "refresh_token_reused" || c == "refresh_token_invalidated"
}

// errorCode reads the OAuth error code from a token endpoint body:
// {"error":{"code":"..."}}, {"error":"..."} or {"code":"..."}.
func errorCode(body []byte) string {
	var b struct {
		Error json.RawMessage `json:"error"`
		Code  string          `json:"code"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	var nested struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(b.Error, &nested) == nil && nested.Code != "" {
		return nested.Code
	}
	var s string
	if json.Unmarshal(b.Error, &s) == nil && s != "" {
		return s
	}
	return b.Code
}

// exchangeCode trades an authorization code for tokens: the form-encoded
// authorization_code grant with the PKCE verifier.
func exchangeCode(ctx context.Context, hc *http.Client, ep Endpoints, code, redirectURI, verifier string) (*tokenResponse, error) {
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"client_id":     {ep.ClientID},
		"code_verifier": {verifier},
	}
	ctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("auth: token url: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: exchange authorization code: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("auth: exchange authorization code: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := resp.Status
		if c := errorCode(data); c != "" {
			msg += " (" + c + ")"
		}
		return nil, fmt.Errorf("auth: exchange authorization code: %s", msg)
	}
	var tr tokenResponse
	if err := json.Unmarshal(data, &tr); err != nil || tr.AccessToken == "" || tr.RefreshToken == "" {
		return nil, errors.New("auth: exchange authorization code: the answer has no access and refresh tokens")
	}
	return &tr, nil
}

// chatGPTFile returns the auth.json content of a fresh ChatGPT login.
func chatGPTFile(tr *tokenResponse, now time.Time) *File {
	t := now.UTC()
	f := &File{
		AuthMode: ModeChatGPT,
		Tokens: &Tokens{
			IDToken:      tr.IDToken,
			AccessToken:  tr.AccessToken,
			RefreshToken: tr.RefreshToken,
		},
		LastRefresh: &t,
	}
	f.Tokens.AccountID = parseClaims(tr.IDToken).AccountID
	if f.Tokens.AccountID == "" {
		f.Tokens.AccountID = parseClaims(tr.AccessToken).AccountID
	}
	return f
}
