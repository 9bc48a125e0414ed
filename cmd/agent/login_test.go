package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// Every fake token below carries "LEAKCHECK", which assertNoSecret looks
// for in stdout, stderr and the log.

// authJWT returns an unsigned JWT for account expiring at exp; serial
// tells tokens apart.
func authJWT(account string, exp time.Time, serial int) string {
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
	body, _ := json.Marshal(map[string]any{
		"exp": exp.Unix(), "serial": serial, "email": "user@example.com",
		"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": account},
	})
	return head + "." + base64.RawURLEncoding.EncodeToString(body) + ".sig-LEAKCHECK"
}

const testAccount = "acct-1234567890"

// fakeAuthServer is an OAuth issuer: the refresh grant, the device-code
// endpoints and the authorization-code grant they end with.
type fakeAuthServer struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	refreshed []string // refresh tokens spent, in order
	fail      string   // when set, every refresh is answered 401 with this body
	pending   int      // device polls answered 403 before approval
}

func newFakeAuthServer(t *testing.T) *fakeAuthServer {
	t.Helper()
	f := &fakeAuthServer{t: t}
	const verifier = "device-verifier-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.Header.Get("Content-Type") == "application/json" {
			var req map[string]string
			_ = json.NewDecoder(r.Body).Decode(&req)
			f.refreshed = append(f.refreshed, req["refresh_token"])
			if f.fail != "" {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, f.fail)
				return
			}
			n := len(f.refreshed)
			json.NewEncoder(w).Encode(map[string]string{
				"access_token":  authJWT(testAccount, time.Now().Add(time.Hour), 100+n),
				"refresh_token": fmt.Sprintf("test-refresh-LEAKCHECK-%d", n+1),
			})
			return
		}
		_ = r.ParseForm()
		s := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if r.PostForm.Get("code") != "dev-code" || base64.RawURLEncoding.EncodeToString(s[:]) != challenge {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{
			"id_token":      authJWT(testAccount, time.Now().Add(time.Hour), 0),
			"access_token":  authJWT(testAccount, time.Now().Add(time.Hour), 1),
			"refresh_token": "test-refresh-LEAKCHECK-1",
		})
	})
	mux.HandleFunc("POST /api/accounts/deviceauth/usercode", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"device_auth_id":"dev-1","user_code":"WXYZ-9876","interval":5}`)
	})
	mux.HandleFunc("POST /api/accounts/deviceauth/token", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.pending > 0 {
			f.pending--
			w.WriteHeader(http.StatusForbidden)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"authorization_code": "dev-code", "code_verifier": verifier})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAuthServer) refreshes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.refreshed...)
}

// chatGPTLogin saves a ChatGPT login whose access token expires at exp.
func chatGPTLogin(t *testing.T, home string, exp time.Time) *auth.File {
	t.Helper()
	last := time.Now().Add(-time.Hour).UTC()
	f := &auth.File{AuthMode: auth.ModeChatGPT, LastRefresh: &last, Tokens: &auth.Tokens{
		IDToken:      authJWT(testAccount, exp, 0),
		AccessToken:  authJWT(testAccount, exp, 1),
		RefreshToken: "test-refresh-LEAKCHECK-1",
		AccountID:    testAccount,
	}}
	if err := auth.NewStore(home, nil).Save(f); err != nil {
		t.Fatal(err)
	}
	return f
}

// runInHome runs the CLI in-process with AGENT_HOME=home and checks that
// no secret reached its output or home's log.
func runInHome(t *testing.T, home string, o runOpts, args ...string) execRun {
	t.Helper()
	env := map[string]string{"AGENT_HOME": home, "FAKE_KEY": ""}
	for k, v := range o.env {
		env[k] = v
	}
	o.env = env
	if !o.stdinTTY && o.stdin == "" {
		o.stdinTTY = true
	}
	r := runCLI(t, nil, o, args...)
	r.home = home
	assertNoSecret(t, r)
	return r
}

func bearers(srv *rt.Server) []string {
	var out []string
	for _, q := range srv.Requests() {
		out = append(out, strings.TrimPrefix(q.Header.Get("Authorization"), "Bearer "))
	}
	return out
}

func readLog(t *testing.T, home string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(home, "log", "agent.log"))
	return string(b)
}

// TestExecRefreshAfter401: a 401 on a ChatGPT login refreshes the token
// once and retries at once; the new tokens are saved 0600 in a 0700 home.
func TestExecRefreshAfter401(t *testing.T) {
	t.Parallel()
	iss := newFakeAuthServer(t)
	srv := rt.NewServer(t, rt.Script{rt.Status(401), rt.Reply("r", "m", "after refresh")})
	home := agenttest.LoginHome(t, srv, "")
	old := chatGPTLogin(t, home, time.Now().Add(time.Hour))
	r := runInHome(t, home, runOpts{env: map[string]string{"AGENT_REFRESH_TOKEN_URL": iss.srv.URL + "/oauth/token"}}, "exec", "hi")
	if r.code != 0 || r.stdout != "after refresh\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]string{"test-refresh-LEAKCHECK-1"}, iss.refreshes()); diff != "" {
		t.Errorf("refresh tokens spent (-want +got):\n%s", diff)
	}
	saved, err := auth.NewStore(home, nil).Load()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{old.Tokens.AccessToken, saved.Tokens.AccessToken}, bearers(srv)); diff != "" {
		t.Errorf("tokens sent (-want +got):\n%s", diff)
	}
	if saved.Tokens.RefreshToken != "test-refresh-LEAKCHECK-2" || saved.Tokens.AccessToken == old.Tokens.AccessToken {
		t.Errorf("saved tokens were not rotated")
	}
	for _, q := range srv.Requests() {
		if q.Header.Get("ChatGPT-Account-ID") != testAccount {
			t.Errorf("request %d: ChatGPT-Account-ID = %q", q.Attempt, q.Header.Get("ChatGPT-Account-ID"))
		}
	}
	if st, err := os.Stat(filepath.Join(home, "auth.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("home mode %v, %v; want 0700", st.Mode().Perm(), err)
	}
	if len(r.sleeps) != 0 {
		t.Errorf("slept %v; the 401 recovery must not wait", r.sleeps)
	}
	if log := readLog(t, home); !strings.Contains(log, "msg=auth_recovery outcome=recovery_succeeded step=refresh") {
		t.Errorf("log lacks the recovery line:\n%s", log)
	}
}

func TestExecRefreshTokenReused(t *testing.T) {
	t.Parallel()
	iss := newFakeAuthServer(t)
	iss.fail = `{"error":{"code":"refresh_token_reused","message":"already used"}}`
	srv := rt.NewServer(t, rt.Script{rt.Status(401)})
	home := agenttest.LoginHome(t, srv, "")
	chatGPTLogin(t, home, time.Now().Add(time.Hour))
	r := runInHome(t, home, runOpts{env: map[string]string{"AGENT_REFRESH_TOKEN_URL": iss.srv.URL + "/oauth/token"}}, "exec", "hi")
	if r.code != exitcode.Auth {
		t.Errorf("exit %d; want 3", r.code)
	}
	for _, w := range []string{"already used", "agent login"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 1 || len(iss.refreshes()) != 1 {
		t.Errorf("%d requests, %d refreshes; want 1, 1", n, len(iss.refreshes()))
	}
	if !strings.Contains(readLog(t, home), "outcome=recovery_failed_permanent") {
		t.Errorf("log:\n%s", readLog(t, home))
	}
}

// TestExecAuthCommand: the command's token is sent, and a 401 reruns it
// once.
func TestExecAuthCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script, count := filepath.Join(dir, "token.sh"), filepath.Join(dir, "runs")
	body := "#!/bin/sh\necho run >> \"$1\"\nn=$(wc -l < \"$1\" | tr -d ' ')\necho \"cmd-token-LEAKCHECK-$n\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := rt.NewServer(t, rt.Script{rt.Status(401), rt.Reply("r", "m", "ok")})
	home := t.TempDir()
	cfg := fmt.Sprintf("model_provider = \"fake\"\n[model_providers.fake]\nbase_url = %q\n[model_providers.fake.auth]\ncommand = %q\nargs = [%q]\n",
		srv.URL, script, count)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runInHome(t, home, runOpts{}, "exec", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff([]string{"cmd-token-LEAKCHECK-1", "cmd-token-LEAKCHECK-2"}, bearers(srv)); diff != "" {
		t.Errorf("tokens sent (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "\n") != 2 {
		t.Errorf("the command ran %d times; want 2", strings.Count(string(b), "\n"))
	}
}

// TestCorruptAuthJSON: a corrupt auth.json is a clear error naming the
// file; agent logout removes it.
func TestCorruptAuthJSON(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, nil)
	home := agenttest.LoginHome(t, srv, "")
	path := filepath.Join(home, "auth.json")
	if err := os.WriteFile(path, []byte(`{"auth_mode":"chatgpt","tokens":{"access_token":"LEAKCHECK`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runInHome(t, home, runOpts{}, "exec", "hi")
	if r.code != exitcode.Auth || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "agent logout") {
		t.Errorf("exit %d; want 3 and a message naming %s and agent logout:\n%s", r.code, path, r.stderr)
	}
	if r := runInHome(t, home, runOpts{}, "login", "status"); r.code != exitcode.Failed || !strings.Contains(r.stderr, path) {
		t.Errorf("login status: exit %d stderr %q", r.code, r.stderr)
	}
	if r := runInHome(t, home, runOpts{}, "logout"); r.code != 0 || !strings.Contains(r.stderr, "Logged out") {
		t.Errorf("logout: exit %d stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("auth.json still there: %v", err)
	}
	r = runInHome(t, home, runOpts{}, "exec", "hi")
	if r.code != exitcode.Auth || !strings.Contains(r.stderr, "agent login") || !strings.Contains(r.stderr, "AGENT_API_KEY") {
		t.Errorf("not logged in: exit %d stderr:\n%s", r.code, r.stderr)
	}
	if r := runInHome(t, home, runOpts{}, "logout"); r.code != 0 || !strings.Contains(r.stderr, "Not logged in") {
		t.Errorf("second logout: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestLoginWithAPIKey(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	home := agenttest.LoginHome(t, srv, "")
	r := runInHome(t, home, runOpts{stdin: fakeKey + "\n"}, "login", "--with-api-key")
	if r.code != 0 || !strings.Contains(r.stderr, auth.Mask(fakeKey)) {
		t.Fatalf("login: exit %d stderr %q", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(home, "auth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil || f["auth_mode"] != "apikey" || f["OPENAI_API_KEY"] != fakeKey {
		t.Errorf("auth.json = %s (%v)", data, err)
	}
	if st, _ := os.Stat(filepath.Join(home, "auth.json")); st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", st.Mode().Perm())
	}
	r = runInHome(t, home, runOpts{}, "login", "status")
	if r.code != 0 || r.stdout != "Logged in using an API key: "+auth.Mask(fakeKey)+"\n" {
		t.Errorf("status: exit %d stdout %q", r.code, r.stdout)
	}
	r = runInHome(t, home, runOpts{}, "exec", "hi")
	if r.code != 0 || srv.Requests()[0].Header.Get("Authorization") != "Bearer "+fakeKey {
		t.Errorf("exec with the saved key: exit %d stderr %s", r.code, r.stderr)
	}
	if r := runInHome(t, home, runOpts{stdinTTY: true}, "login", "--with-api-key"); r.code != exitcode.Usage {
		t.Errorf("--with-api-key at a terminal: exit %d; want 2", r.code)
	}
	if r := runInHome(t, home, runOpts{stdin: "\n"}, "login", "--with-api-key"); r.code != exitcode.Usage {
		t.Errorf("--with-api-key with empty stdin: exit %d; want 2", r.code)
	}
}

func TestLoginStatusNotLoggedIn(t *testing.T) {
	t.Parallel()
	r := runInHome(t, t.TempDir(), runOpts{}, "login", "status")
	if r.code != exitcode.Failed || r.stdout != "Not logged in\n" {
		t.Errorf("exit %d stdout %q; want 1, Not logged in", r.code, r.stdout)
	}
}

// TestLoginDeviceAuth logs in with a device code against a fake issuer;
// the polls wait on the injected clock.
func TestLoginDeviceAuth(t *testing.T) {
	t.Parallel()
	iss := newFakeAuthServer(t)
	iss.pending = 2
	home := t.TempDir()
	r := runInHome(t, home, runOpts{env: map[string]string{"AGENT_AUTH_ISSUER": iss.srv.URL}}, "login", "--device-auth")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	for _, w := range []string{iss.srv.URL + "/codex/device", "WXYZ-9876", "Logged in using ChatGPT (account acct-…7890, user@example.com)"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second}, r.sleeps); diff != "" {
		t.Errorf("poll waits (-want +got):\n%s", diff)
	}
	r = runInHome(t, home, runOpts{}, "login", "status")
	if r.code != 0 || r.stdout != "Logged in using ChatGPT (account acct-…7890, user@example.com)\n" {
		t.Errorf("status: exit %d stdout %q", r.code, r.stdout)
	}
}

// TestExecChatGPTBackend: with a ChatGPT login and no OPENAI_API_KEY, the
// built-in openai provider talks to chatgpt_base_url with the account
// header.
func TestExecChatGPTBackend(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("chatgpt_base_url = \""+srv.URL+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := chatGPTLogin(t, home, time.Now().Add(time.Hour))
	r := runInHome(t, home, runOpts{}, "exec", "--transport", "https", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	q := srv.Requests()[0]
	if q.Header.Get("Authorization") != "Bearer "+f.Tokens.AccessToken || q.Header.Get("ChatGPT-Account-ID") != testAccount {
		t.Errorf("headers = %v", q.Header)
	}
	r = runInHome(t, t.TempDir(), runOpts{}, "exec", "hi")
	if r.code != exitcode.Auth || !strings.Contains(r.stderr, "agent login") || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Errorf("openai without any key: exit %d stderr:\n%s", r.code, r.stderr)
	}
}

// TestE2EConcurrentRefresh runs two agent processes on one home with an
// expired access token: exactly one refreshes it, the other takes the
// fresh tokens from disk, and both answer. The test holds the lock until
// both processes wait for it, so they really contend.
func TestE2EConcurrentRefresh(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	iss := newFakeAuthServer(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "answer"), rt.Reply("r2", "m2", "answer")})
	home := agenttest.LoginHome(t, srv, "")
	chatGPTLogin(t, home, time.Now().Add(-time.Minute))

	unlock, err := auth.NewStore(home, nil).Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd            *exec.Cmd
		stdout, stderr *syncbuf.Buffer
		done           chan error
	}
	var procs []proc
	for range 2 {
		cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "--log-level", "debug", "hi")
		cmd.Env = append(cmd.Env, "AGENT_REFRESH_TOKEN_URL="+iss.srv.URL+"/oauth/token")
		if err := cmd.Start(); err != nil {
			unlock()
			t.Fatal(err)
		}
		p := proc{cmd, stdout, stderr, make(chan error, 1)}
		go func() { p.done <- cmd.Wait() }()
		procs = append(procs, p)
	}
	// Both processes log auth_lock_wait once they find the lock taken.
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for strings.Count(readLog(t, home), "msg=auth_lock_wait") < 2 {
		select {
		case <-deadline:
			unlock()
			for _, p := range procs {
				p.cmd.Process.Kill()
				<-p.done
			}
			t.Fatalf("the processes never waited for the lock; log:\n%s", readLog(t, home))
		case <-tick.C:
		}
	}
	unlock()
	for i, p := range procs {
		select {
		case err := <-p.done:
			if err != nil || p.stdout.String() != "answer\n" {
				t.Errorf("process %d: %v, stdout %q, stderr:\n%s", i, err, p.stdout, p.stderr)
			}
			if strings.Contains(p.stdout.String()+p.stderr.String(), "LEAKCHECK") {
				t.Errorf("process %d leaked a secret", i)
			}
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
			t.Fatalf("process %d did not finish", i)
		}
	}
	if diff := cmp.Diff([]string{"test-refresh-LEAKCHECK-1"}, iss.refreshes()); diff != "" {
		t.Errorf("refreshes (-want +got):\n%s", diff)
	}
	saved, err := auth.NewStore(home, nil).Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bearers(srv) {
		if b != saved.Tokens.AccessToken {
			t.Error("a process sent a token other than the refreshed one")
		}
	}
	if strings.Contains(readLog(t, home), "LEAKCHECK") {
		t.Error("the log leaked a secret")
	}
}

// TestAuthFileTightenedNotice: an auth.json readable by others is set to
// 0600 when agent reads it, and the user is told so once, by every
// command that reads it (login status, exec).
func TestAuthFileTightenedNotice(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	home := agenttest.LoginHome(t, srv, "")
	path := filepath.Join(home, "auth.json")
	for _, args := range [][]string{{"login", "status"}, {"exec", "hi"}} {
		if err := os.WriteFile(path, []byte(`{"OPENAI_API_KEY":"`+fakeKey+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runInHome(t, home, runOpts{}, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d stderr %s", args, r.code, r.stderr)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%v: auth.json mode %v; want 0600", args, st.Mode().Perm())
		}
		if n := strings.Count(r.stderr, "tightened it to 0600"); n != 1 {
			t.Errorf("%v: the notice appeared %d times; want once. stderr:\n%s", args, n, r.stderr)
		}
	}
}
