package modelclient

import (
	"context"
	"log/slog"
	"net/http"
)

// Credentials authenticate the attempts of a [Client]. Apply sets the
// Authorization header (and, for ChatGPT logins, ChatGPT-Account-ID) on h,
// the headers of one attempt; it may first renew a token that is about to
// expire, bounded by ctx. Implementations must be safe for concurrent use.
// *auth.APIKey, *auth.Command and *auth.Manager implement it.
type Credentials interface {
	Apply(ctx context.Context, h http.Header) error
}

// Reloader is implemented by [Credentials] kept where another process may
// renew them (auth.json). After a 401, Reload re-reads them and reports
// whether they differ from those the failed attempt sent (in sent), so the
// request is worth retrying.
type Reloader interface {
	Reload(ctx context.Context, sent http.Header) (retry bool, err error)
}

// Refresher is implemented by [Credentials] that can be renewed at their
// source: a token refresh, or rerunning an auth command. After a 401,
// Refresh renews them (unless a concurrent request already did) and
// reports whether the request is worth retrying.
type Refresher interface {
	Refresh(ctx context.Context, sent http.Header) (retry bool, err error)
}

// Outcomes of a 401 recovery, as logged in "auth_recovery" lines.
const (
	RecoverySucceeded       = "recovery_succeeded"
	RecoveryFailedPermanent = "recovery_failed_permanent"
	RecoveryFailedTransient = "recovery_failed_transient"
	RecoveryNotRun          = "recovery_not_run"
)

// authRecovery is the 401 recovery state of one request (one HTTP layer
// call): each step runs at most once. No step waits or spends a retry
// budget.
type authRecovery struct {
	reloaded, refreshed bool
}

// recoverAuth handles a 401 (f) on the attempt that sent the headers sent:
// first it reloads stored credentials (retry if they changed), then it
// refreshes them (retry if that worked). It reports whether to retry at
// once; an error from a step ends the request with that error, which
// [Classify] judges (a refused refresh token is [KindAuth], an unreachable
// token endpoint is retryable).
func (c *Client) recoverAuth(ctx context.Context, r *authRecovery, sent http.Header, f Failure) (retry bool, err error) {
	if rl, ok := c.opts.Auth.(Reloader); ok && !r.reloaded {
		r.reloaded = true
		retry, err := rl.Reload(ctx, sent)
		if err != nil || retry {
			c.logAuthRecovery(ctx, "reload", f, err)
			return retry, err
		}
	}
	if rf, ok := c.opts.Auth.(Refresher); ok && !r.refreshed {
		r.refreshed = true
		retry, err := rf.Refresh(ctx, sent)
		if err != nil || retry {
			c.logAuthRecovery(ctx, "refresh", f, err)
			return retry, err
		}
	}
	step := "exhausted" // every step ran for this request already
	if _, ok := c.opts.Auth.(Reloader); !ok {
		if _, ok := c.opts.Auth.(Refresher); !ok {
			step = "none" // an API key: nothing to recover
		}
	}
	c.logAuthRecovery(ctx, step, f, nil)
	return false, nil
}

// logAuthRecovery writes the one structured line a 401 recovery gets. It
// never logs a credential: err comes from the auth package, whose errors
// carry none.
func (c *Client) logAuthRecovery(ctx context.Context, step string, f Failure, err error) {
	outcome, level := RecoverySucceeded, slog.LevelInfo
	switch {
	case step == "none" || step == "exhausted":
		outcome = RecoveryNotRun
	case err != nil && Classify(err).Retryable():
		outcome, level = RecoveryFailedTransient, slog.LevelWarn
	case err != nil:
		outcome, level = RecoveryFailedPermanent, slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("outcome", outcome),
		slog.String("step", step),
		slog.Int("status", f.Status),
		slog.String("request_id", f.RequestID),
		slog.String("provider", c.opts.Provider.ID),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.opts.Logger.LogAttrs(ctx, level, "auth_recovery", attrs...)
}
