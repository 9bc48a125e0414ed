package modelclient_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// consume reads a stream to response.completed.
func consume(_ context.Context, s transport.Stream) error {
	for ev := range s.Events() {
		if _, ok := ev.(transport.Completed); ok {
			return nil
		}
	}
	if s.Err() != nil {
		return s.Err()
	}
	return transport.ErrIncomplete
}

// TestServerTimesOnTheClientsClock: the server's times are read on the
// client's clock (Options.Now), never the wall clock: an HTTP-date
// Retry-After an hour after the client's now pauses the turn until then
// (past the rate limit's cap), with one request and no wait, and a usage
// limit's resets_in_seconds resets that long after the client's now.
func TestServerTimesOnTheClientsClock(t *testing.T) {
	now := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC) // long past: the wall clock would see no delay
	date := now.Add(time.Hour).Format(http.TimeFormat)
	limit := `{"error":{"type":"usage_limit_reached","message":"limit","resets_in_seconds":90}}`
	tests := []struct {
		name  string
		reply rt.Attempt
		check func(o *modelclient.Outcome) bool
	}{
		{"HTTP-date Retry-After", rt.Status(429, "Retry-After", date), func(o *modelclient.Outcome) bool {
			return o.End == modelclient.EndWait && o.Until.Equal(now.Add(time.Hour)) && o.ContinueAt().Equal(now.Add(time.Hour))
		}},
		{"resets_in_seconds", rt.StatusBody(429, limit), func(o *modelclient.Outcome) bool {
			return o.Failure.Kind == modelclient.KindUsageLimit && o.ContinueAt().Equal(now.Add(90*time.Second))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{tt.reply})
			p := provider.Custom("test")
			p.BaseURL = srv.URL
			var sleeps []time.Duration
			c := modelclient.New(modelclient.Options{
				Provider: p, HTTPClient: srv.Client(), Now: func() time.Time { return now },
				Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil },
			})
			defer c.Close()
			o := c.NewTurn(modelclient.TurnOptions{}).Sample(t.Context(), modelclient.Sampling{
				Prompt: func() *modelclient.Prompt { return &modelclient.Prompt{} }, Consume: consume,
			})
			if o == nil || !tt.check(o) || len(sleeps) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("outcome %+v, waits %v, %d requests; want it on the client's clock, no wait, one request",
					o, sleeps, len(srv.Requests()))
			}
		})
	}
}
