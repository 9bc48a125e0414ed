package modelclient

import (
	"context"
	"net/http"
	"time"
)

// Observer hears about every sampling request a [Client] sends: agent's
// telemetry ([otel], codex.api_request). APIRequest is called on the
// turn's goroutine once the attempt's response began or failed; it must
// not block.
type Observer interface {
	APIRequest(ctx context.Context, r APIRequest)
}

// APIRequest is one attempt of a sampling request.
type APIRequest struct {
	// Attempt is the 1-based attempt within the request's HTTP layer.
	Attempt int
	// Status is the HTTP status: 200 once the stream opened, the error's
	// status when it failed with one, else 0.
	Status int
	// Duration is the time from sending to the response (or failure).
	Duration time.Duration
	// Err is why the attempt failed; nil when the stream opened.
	Err error
}

// observe reports one attempt that started at start to the observer.
func (c *Client) observe(ctx context.Context, attempt int, start time.Time, err error) {
	o := c.opts.Observer
	if o == nil {
		return
	}
	r := APIRequest{Attempt: attempt, Status: http.StatusOK, Duration: c.opts.Now().Sub(start), Err: err}
	if err != nil {
		r.Status = Classify(err).Status
	}
	o.APIRequest(ctx, r)
}
