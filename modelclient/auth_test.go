package modelclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/auth"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// The auth types the client consumes satisfy its interfaces.
var (
	_ modelclient.Credentials = (*auth.APIKey)(nil)
	_ modelclient.Credentials = (*auth.Command)(nil)
	_ modelclient.Refresher   = (*auth.Command)(nil)
	_ modelclient.Credentials = (*auth.Manager)(nil)
	_ modelclient.Reloader    = (*auth.Manager)(nil)
	_ modelclient.Refresher   = (*auth.Manager)(nil)
)

// fakeCreds sends "tok-N" and counts the recovery steps. reload and
// refresh decide each step's answer (nil: false, nil); a step that
// answers retry moves to the next token.
type fakeCreds struct {
	reload, refresh func() (bool, error)

	mu                 sync.Mutex
	n                  int
	reloads, refreshes int
}

func (f *fakeCreds) Apply(_ context.Context, h http.Header) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.Set("Authorization", fmt.Sprintf("Bearer tok-%d", f.n+1))
	h.Set("ChatGPT-Account-ID", "acct-1")
	return nil
}

func (f *fakeCreds) step(count *int, fn func() (bool, error)) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*count++
	if fn == nil {
		return false, nil
	}
	retry, err := fn()
	if retry {
		f.n++
	}
	return retry, err
}

func (f *fakeCreds) Reload(_ context.Context, _ http.Header) (bool, error) {
	return f.step(&f.reloads, f.reload)
}

func (f *fakeCreds) Refresh(_ context.Context, _ http.Header) (bool, error) {
	return f.step(&f.refreshes, f.refresh)
}

func answer(retry bool, err error) func() (bool, error) {
	return func() (bool, error) { return retry, err }
}

type authRun struct {
	err    error
	tokens []string
	sleeps []time.Duration
	log    string
}

// streamWith runs one Turn.Sample over transport ("sse" or "ws")
// against script, authenticated by creds.
func streamWith(t *testing.T, mode string, script rt.Script, creds modelclient.Credentials) authRun {
	t.Helper()
	srv := rt.NewServer(t, script)
	p := provider.Custom("test")
	p.BaseURL, p.SupportsWebSockets = srv.URL, mode == "ws"
	p.StreamMaxRetries = 0 // the HTTP layer and 401 recovery alone
	var logs bytes.Buffer
	var run authRun
	c := modelclient.New(modelclient.Options{
		Provider:   p,
		Auth:       creds,
		HTTPClient: srv.Client(),
		Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
		Sleep: func(ctx context.Context, d time.Duration) error {
			run.sleeps = append(run.sleeps, d)
			return nil
		},
	})
	defer c.Close()
	o := c.NewTurn(modelclient.TurnOptions{}).Sample(t.Context(), modelclient.Sampling{
		Prompt: func() *modelclient.Prompt { return &modelclient.Prompt{} },
		Consume: func(_ context.Context, s transport.Stream) error {
			for ev := range s.Events() {
				if _, ok := ev.(transport.Completed); ok {
					return nil
				}
			}
			if s.Err() != nil {
				return s.Err()
			}
			return transport.ErrIncomplete
		},
	})
	if o != nil {
		run.err = o
	}
	if reqs := srv.Requests(); mode == "ws" && len(reqs) > 0 && reqs[0].Method != http.MethodGet {
		t.Errorf("first request is a %s; want the WebSocket handshake", reqs[0].Method)
	}
	for _, r := range srv.Requests() {
		run.tokens = append(run.tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if r.Header.Get("ChatGPT-Account-ID") != "acct-1" && r.Header.Get("Authorization") != "Bearer "+apiKey {
			t.Errorf("request %d lacks the account header", r.Attempt)
		}
	}
	run.log = logs.String()
	return run
}

const apiKey = "test-key-LEAKCHECK-0001"

func TestAuthRecovery(t *testing.T) {
	refused := &auth.RefreshTokenFailedError{Code: "refresh_token_reused"}
	unreachable := &auth.RefreshError{StatusCode: 503, Err: errors.New("503")}
	ok := rt.Reply("r", "m", "hi")
	tests := []struct {
		name               string
		script             rt.Script
		creds              func() *fakeCreds
		tokens             []string
		reloads, refreshes int
		kind               modelclient.Kind // of the error; 0 with wantOK
		retryable          bool
		wantOK             bool
		log                string
	}{
		{name: "401 then refresh then success",
			script: rt.Script{rt.Status(401), ok}, creds: func() *fakeCreds { return &fakeCreds{refresh: answer(true, nil)} },
			tokens: []string{"tok-1", "tok-2"}, reloads: 1, refreshes: 1, wantOK: true,
			log: "msg=auth_recovery outcome=recovery_succeeded step=refresh status=401"},
		{name: "tokens changed on disk: retried without a refresh",
			script: rt.Script{rt.Status(401), ok}, creds: func() *fakeCreds { return &fakeCreds{reload: answer(true, nil)} },
			tokens: []string{"tok-1", "tok-2"}, reloads: 1, refreshes: 0, wantOK: true,
			log: "outcome=recovery_succeeded step=reload"},
		{name: "each step at most once per request",
			script: rt.Script{rt.Status(401), rt.Status(401), rt.Status(401)},
			creds:  func() *fakeCreds { return &fakeCreds{reload: answer(true, nil), refresh: answer(true, nil)} },
			tokens: []string{"tok-1", "tok-2", "tok-3"}, reloads: 1, refreshes: 1, kind: modelclient.KindAuth,
			log: "outcome=recovery_not_run step=exhausted"},
		{name: "refresh token refused: the turn ends",
			script: rt.Script{rt.Status(401)}, creds: func() *fakeCreds { return &fakeCreds{refresh: answer(false, refused)} },
			tokens: []string{"tok-1"}, reloads: 1, refreshes: 1, kind: modelclient.KindAuth,
			log: "outcome=recovery_failed_permanent step=refresh"},
		{name: "token endpoint unreachable: retryable by the stream layer",
			script: rt.Script{rt.Status(401)}, creds: func() *fakeCreds { return &fakeCreds{refresh: answer(false, unreachable)} },
			tokens: []string{"tok-1"}, reloads: 1, refreshes: 1, kind: modelclient.KindServerError, retryable: true,
			log: "outcome=recovery_failed_transient step=refresh"},
	}
	for _, mode := range []string{"sse", "ws"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				creds := tt.creds()
				r := streamWith(t, mode, tt.script, creds)
				if diff := cmp.Diff(tt.tokens, r.tokens); diff != "" {
					t.Errorf("tokens sent (-want +got):\n%s", diff)
				}
				if creds.reloads != tt.reloads || creds.refreshes != tt.refreshes {
					t.Errorf("%d reloads, %d refreshes; want %d, %d", creds.reloads, creds.refreshes, tt.reloads, tt.refreshes)
				}
				if len(r.sleeps) != 0 {
					t.Errorf("slept %v; 401 recovery must not wait", r.sleeps)
				}
				if !strings.Contains(r.log, tt.log) {
					t.Errorf("log lacks %q:\n%s", tt.log, r.log)
				}
				if tt.wantOK {
					if r.err != nil {
						t.Fatalf("err = %v", r.err)
					}
					return
				}
				f := modelclient.Classify(r.err)
				if f.Kind != tt.kind || f.Retryable() != tt.retryable {
					t.Errorf("Classify(%v) = %v retryable=%v; want %v retryable=%v", r.err, f.Kind, f.Retryable(), tt.kind, tt.retryable)
				}
				if errors.Is(r.err, refused) && !strings.Contains(f.Message, "agent login") {
					t.Errorf("message %q does not say to log in", f.Message)
				}
			})
		}
	}
}

// TestAuthRecoveryAPIKey: an API key cannot recover; its 401 is reported
// at once, without a retry or a wait.
func TestAuthRecoveryAPIKey(t *testing.T) {
	for _, mode := range []string{"sse", "ws"} {
		t.Run(mode, func(t *testing.T) {
			r := streamWith(t, mode, rt.Script{rt.Status(401)}, auth.NewAPIKey(apiKey))
			if f := modelclient.Classify(r.err); f.Kind != modelclient.KindAuth || f.Retryable() {
				t.Errorf("Classify = %+v; want a non-retryable KindAuth", f)
			}
			if len(r.tokens) != 1 || len(r.sleeps) != 0 {
				t.Errorf("%d requests, sleeps %v; want 1, none", len(r.tokens), r.sleeps)
			}
			if !strings.Contains(r.log, "outcome=recovery_not_run step=none") || strings.Contains(r.log, "LEAKCHECK") {
				t.Errorf("log:\n%s", r.log)
			}
		})
	}
}

func TestClassifyAuthErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		kind      modelclient.Kind
		class     string
		retryable bool
	}{
		{"refresh refused", fmt.Errorf("recover: %w", &auth.RefreshTokenFailedError{Code: "refresh_token_expired"}), modelclient.KindAuth, "", false},
		{"auth command failed", &auth.CommandError{Command: "x", Err: errors.New("exit status 1")}, modelclient.KindAuth, "", false},
		{"token endpoint 5xx", &auth.RefreshError{StatusCode: 502, Err: errors.New("502")}, modelclient.KindServerError, provider.ClassServerError, true},
		{"token endpoint unreachable", &auth.RefreshError{Err: errors.New("connection refused")}, modelclient.KindTransport, provider.ClassTransport, true},
		{"cancelled during a refresh", &auth.RefreshError{Err: context.Canceled}, modelclient.KindCanceled, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := modelclient.Classify(tt.err)
			if f.Kind != tt.kind || f.Class() != tt.class || f.Retryable() != tt.retryable {
				t.Errorf("Classify = %v/%q/%v; want %v/%q/%v", f.Kind, f.Class(), f.Retryable(), tt.kind, tt.class, tt.retryable)
			}
		})
	}
}
