package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package if a goroutine (a callback server, a lock
// waiter) outlives its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// leak is the marker every fake secret carries; no output may contain it.
const leak = "LEAKCHECK"

// jwt returns an unsigned JWT with the claims given; its signature part
// carries the leak marker, so a leaked token is caught by noSecret.
func jwt(claims map[string]any) string {
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
	body, _ := json.Marshal(claims)
	return head + "." + base64.RawURLEncoding.EncodeToString(body) + ".sig-" + leak
}

// accessToken returns a fake access token of account that expires at exp.
func accessToken(account string, exp time.Time, n int) string {
	return jwt(map[string]any{
		"exp":                         exp.Unix(),
		"n":                           n,
		"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": account},
	})
}

func idToken(account, email string) string {
	return jwt(map[string]any{
		"email":                       email,
		"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": account, "chatgpt_plan_type": "plus"},
	})
}

// noSecret fails t if s holds a fake secret.
func noSecret(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, leak) {
		t.Errorf("%s leaks a secret: %s", what, s)
	}
}

// fakeIssuer is an OAuth issuer: a token endpoint (refresh and
// authorization-code grants), an authorize endpoint that redirects at once
// (the user approved), and the device-code endpoints.
type fakeIssuer struct {
	t   *testing.T
	srv *httptest.Server
	now func() time.Time

	mu sync.Mutex
	// refreshes counts refresh grants; refreshTokens are those spent.
	refreshes     int
	refreshTokens []string
	// failStatus/failBody, when set, answer every refresh grant.
	failStatus int
	failBody   string
	// codes maps each issued authorization code to its PKCE challenge.
	codes     map[string]string
	exchanges int
	// pending is how many device polls answer 403 before approval.
	pending, polls int
}

func newFakeIssuer(t *testing.T) *fakeIssuer {
	t.Helper()
	f := &fakeIssuer{t: t, now: time.Now, codes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/token", f.token)
	mux.HandleFunc("GET /oauth/authorize", f.authorize)
	mux.HandleFunc("POST /api/accounts/deviceauth/usercode", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"device_auth_id":"dev-1","user_code":"ABCD-1234","interval":"5"}`)
	})
	mux.HandleFunc("POST /api/accounts/deviceauth/token", f.devicePoll)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeIssuer) URL() string      { return f.srv.URL }
func (f *fakeIssuer) TokenURL() string { return f.srv.URL + "/oauth/token" }

func (f *fakeIssuer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refreshes
}

func (f *fakeIssuer) token(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var req map[string]string
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req["grant_type"] != "refresh_token" || req["client_id"] == "" {
			f.t.Errorf("bad refresh request: %v %v", req, err)
		}
		f.refreshes++
		f.refreshTokens = append(f.refreshTokens, req["refresh_token"])
		if f.failStatus != 0 {
			w.WriteHeader(f.failStatus)
			io.WriteString(w, f.failBody)
			return
		}
		n := f.refreshes
		json.NewEncoder(w).Encode(map[string]string{
			"access_token":  accessToken("acct-1234567890", f.now().Add(time.Hour), n),
			"refresh_token": fmt.Sprintf("test-refresh-%s-%d", leak, n+1),
		})
		return
	}
	// The authorization-code grant, PKCE-checked.
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("token form: %v", err)
	}
	challenge, ok := f.codes[r.PostForm.Get("code")]
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || r.PostForm.Get("grant_type") != "authorization_code" || r.PostForm.Get("redirect_uri") == "" ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant"}`)
		return
	}
	f.exchanges++
	json.NewEncoder(w).Encode(map[string]string{
		"id_token":      idToken("acct-1234567890", "user@example.com"),
		"access_token":  accessToken("acct-1234567890", f.now().Add(time.Hour), 0),
		"refresh_token": "test-refresh-" + leak + "-1",
	})
}

// authorize plays an issuer whose user approves at once: it redirects the
// browser to redirect_uri with a code bound to the PKCE challenge.
func (f *fakeIssuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" || q.Get("client_id") == "" {
		http.Error(w, "bad authorize request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.codes["code-1"] = q.Get("code_challenge")
	f.mu.Unlock()
	u, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	u.RawQuery = url.Values{"code": {"code-1"}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (f *fakeIssuer) devicePoll(w http.ResponseWriter, r *http.Request) {
	var req map[string]string
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req["device_auth_id"] != "dev-1" || req["user_code"] != "ABCD-1234" {
		f.t.Errorf("bad poll: %v %v", req, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	if f.polls <= f.pending {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"error":"authorization_pending"}`)
		return
	}
	const verifier = "device-verifier-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	f.codes["dev-code"] = base64.RawURLEncoding.EncodeToString(sum[:])
	json.NewEncoder(w).Encode(map[string]string{
		"authorization_code": "dev-code",
		"code_verifier":      verifier,
		"code_challenge":     f.codes["dev-code"],
	})
}
