package modelclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/transport"
)

// maxCompactBody bounds the compaction answer.
const maxCompactBody = 64 << 20

// SupportsRemoteCompaction reports whether the provider offers the unary
// POST {base}/responses/compact endpoint (the OpenAI API does).
func (c *Client) SupportsRemoteCompaction() bool {
	return c.opts.Provider.RemoteCompaction && c.wire.API == provider.WireAPIResponses
}

// Compact asks the server to compact p's input: POST {base}/responses/compact
// with the request body (under the turn's settings st) minus the
// streaming fields; the answer's "output"
// items replace the history. Failures before an answer are retried like
// any request (the HTTP layer, which here also takes 429s: compaction has
// no stream layer), with the same 401 recovery and retry gate, bounded by
// ctx.
func (c *Client) Compact(ctx context.Context, p *Prompt, st Settings) ([]transport.Item, error) {
	if c.wireErr == nil && c.wire.API != provider.WireAPIResponses {
		return nil, fmt.Errorf("remote compaction is the Responses API's; wire_api %q has none", c.wire.API)
	}
	body, err := c.Body(p, st)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	for _, k := range []string{"stream", "store", "include", "tool_choice"} {
		delete(m, k)
	}
	if body, err = json.Marshal(m); err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(c.url, "/responses") + "/responses/compact"
	if i := strings.Index(c.url, "/responses?"); i >= 0 {
		url = c.url[:i] + "/responses/compact" + c.url[i+len("/responses"):]
	}
	l := &httpLayer{c: c, budget: retry.NewBudget(LayerHTTP, c.opts.Provider.RequestMaxRetries, 0), alone: true}
	d := retry.Driver{Wait: c.wait, Notify: c.notify(ctx, "compact", nil), Decide: l.decide(ctx)}
	return retry.Do(ctx, d, func(ctx context.Context, n int) ([]transport.Item, error) {
		release, err := c.opts.Gate.Enter(ctx, n > 1)
		if err != nil {
			return nil, err
		}
		defer release()
		h, err := c.header(ctx)
		if err != nil {
			return nil, classified(err, c.opts.Now)
		}
		l.sent = h
		items, err := c.compactOnce(ctx, url, h, body)
		return items, classified(err, c.opts.Now)
	})
}

func (c *Client) compactOnce(ctx context.Context, url string, h http.Header, body []byte) ([]transport.Item, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	hc := c.opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &transport.ConnectError{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCompactBody))
	if err != nil {
		return nil, &transport.ReadError{Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &transport.HTTPError{StatusCode: resp.StatusCode, Header: resp.Header, Body: b}
	}
	var out struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Output == nil {
		return nil, &transport.DecodeError{Type: "responses/compact", Err: fmt.Errorf("no output in the answer: %v", err)}
	}
	items := make([]transport.Item, 0, len(out.Output))
	for _, raw := range out.Output {
		it, err := transport.ParseItem(raw)
		if err != nil {
			return nil, &transport.DecodeError{Type: "responses/compact", Err: err}
		}
		items = append(items, it)
	}
	return items, nil
}
