package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"encoding/json"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
	"github.com/agentcli/agent/rollout"
)

// faultRow is one scenario of the fault matrix. The table doubles as
// documentation: docs/failure-behaviour.md is generated from it (run the
// test with -update) and the test fails when the two disagree.
type faultRow struct {
	group  string
	name   string
	only   string // "", "sse" or "ws": the transports the row applies to
	script func() rt.Script
	// What the user gets.
	requests int
	waits    []time.Duration
	exit     int
	stdout   string // exact
	stderr   string // a substring
	extra    string // config appended to the provider table
	extraTop string // config tables after it ([retry], ...)
	env      map[string]string
	// check, when set, inspects the requests the server saw.
	check func(t *testing.T, reqs []rt.Request)
	// binary runs the row with the built binary instead of in process
	// (no waits to record): an event of megabytes costs a minute under
	// the race detector, a fraction of a second in the binary users run.
	binary bool
}

// forever is a script long enough for a failure that never clears: more
// attempts than any bound allows (a request beyond the bound fails the
// row, one beyond the script fails the test).
func forever(a rt.Attempt) func() rt.Script {
	return func() rt.Script { return slices.Repeat(rt.Script{a}, 60) }
}

// seq is n copies of d.
func seq(n int, d ...time.Duration) []time.Duration { return slices.Repeat(d, n) }

// nested is the waits of a 5xx that never clears, with the default
// budgets: the HTTP layer's four waits inside each of the stream layer's
// six attempts, the stream layer's five waits between them.
func nested() []time.Duration {
	ms := time.Millisecond
	http := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms}
	w := slices.Clone(http)
	for _, d := range []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms} {
		w = append(append(w, d), http...)
	}
	return w
}

// cat joins wait lists.
func cat(ws ...[]time.Duration) []time.Duration { return slices.Concat(ws...) }

func reply() rt.Attempt { return rt.Reply("r", "m", "answer") }

func failed(code, msg string) rt.Attempt {
	return rt.Stream(rt.Created("r"), rt.Failed("r", code, msg))
}

func faultRows() []faultRow {
	return slices.Concat(httpStatusRows(), responseFailedRows(), malformedStreamRows(), cutStreamRows(), neverClearsRows(), eventsRows(), websocketRows(), errorEventRows(), reproducedRows(), gatewayRows(), eventShapeRows())
}

// httpStatusRows are the fault matrix rows of group "HTTP status".
func httpStatusRows() []faultRow {
	ms := time.Millisecond
	s := time.Second
	ok := "answer\n"
	return []faultRow{
		// HTTP status classes.
		{group: "HTTP status", name: "500 then OK", only: "sse", script: func() rt.Script { return rt.Script{rt.Status(500), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "Retrying request... 1/4 in 0.2s (500"},
		{group: "HTTP status", name: "handshake answered 500 then OK: the stream layer retries handshakes", only: "ws", script: func() rt.Script { return rt.Script{rt.Status(500), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "Reconnecting... 1/5 in 0.2s (500"},
		{group: "HTTP status", name: "502, 503, 504 then OK", script: func() rt.Script { return rt.Script{rt.Status(502), rt.Status(503), rt.Status(504), reply()} },
			requests: 4, waits: []time.Duration{200 * ms, 400 * ms, 800 * ms}, stdout: ok, stderr: "3/"},
		{group: "HTTP status", name: "500 five times: HTTP budget spent, then the stream layer retries", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Status(500), rt.Status(500), rt.Status(500), rt.Status(500), rt.Status(500), reply()}
		}, requests: 6, waits: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 200 * ms}, stdout: ok, stderr: "Reconnecting... 1/5"},
		{group: "HTTP status", name: "503 with Retry-After: 2", script: func() rt.Script { return rt.Script{rt.Status(503, "Retry-After", "2"), reply()} },
			requests: 2, waits: []time.Duration{2 * s}, stdout: ok, stderr: "in 2.0s"},
		{group: "HTTP status", name: "503 model at capacity", script: func() rt.Script {
			return rt.Script{rt.Error(503, "server_error", "", "Selected model is at capacity. Please try a different model."), reply()}
		}, requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok, stderr: "Model at capacity; retrying 1/5 in 1.5s"},
		{group: "HTTP status", name: "529 overloaded", script: func() rt.Script { return rt.Script{rt.Status(529), reply()} },
			requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok, stderr: "Model at capacity"},
		{group: "HTTP status", name: "429 with Retry-After: 3", script: func() rt.Script { return rt.Script{rt.Status(429, "Retry-After", "3"), reply()} },
			requests: 2, waits: []time.Duration{3 * s}, stdout: ok, stderr: "in 3.0s"},
		{group: "HTTP status", name: "429 with Retry-After-Ms: 750", script: func() rt.Script { return rt.Script{rt.Status(429, "Retry-After-Ms", "750"), reply()} },
			requests: 2, waits: []time.Duration{750 * ms}, stdout: ok},
		{group: "HTTP status", name: "429 without a hint", script: func() rt.Script { return rt.Script{rt.Status(429), reply()} },
			requests: 2, waits: []time.Duration{s}, stdout: ok},
		{group: "HTTP status", name: "429 \"try again in 1.5s\" in the body", script: func() rt.Script {
			return rt.Script{rt.Error(429, "requests", "rate_limit_exceeded", "Rate limit reached. Please try again in 1.5s."), reply()}
		}, requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok},
		{group: "HTTP status", name: "429 insufficient_quota", script: func() rt.Script {
			return rt.Script{rt.Error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota")}
		}, requests: 1, exit: exitcode.Quota, stderr: "quota exceeded"},
		{group: "HTTP status", name: "429 usage_limit_reached", script: func() rt.Script {
			return rt.Script{rt.StatusBody(429, `{"error":{"type":"usage_limit_reached","message":"limit","resets_at":4102444800}}`)}
		}, requests: 1, exit: exitcode.Quota, stderr: "usage limit reached; it resets at"},
		{group: "HTTP status", name: "408 request timeout", script: func() rt.Script { return rt.Script{rt.Status(408), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "HTTP status", name: "400 invalid request", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Error(400, "invalid_request_error", "", "Unknown parameter: 'foo'")}
		},
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: Unknown parameter"},
		{group: "HTTP status", name: "401 with an API key", script: func() rt.Script { return rt.Script{rt.Status(401)} },
			requests: 1, exit: exitcode.Auth, stderr: "authentication failed (401)"},
		{group: "HTTP status", name: "403 forbidden", only: "sse", script: func() rt.Script { return rt.Script{rt.StatusBody(403, "Access blocked by Cloudflare")} },
			requests: 1, exit: exitcode.Failed, stderr: "403"},
		{group: "HTTP status", name: "404 model not found", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Error(404, "invalid_request_error", "model_not_found", "The model does not exist")}
		},
			requests: 1, exit: exitcode.Failed, stderr: "404 The model does not exist"},
	}
}

// responseFailedRows are the fault matrix rows of group "response.failed".
func responseFailedRows() []faultRow {
	ms := time.Millisecond
	ok := "answer\n"
	return []faultRow{
		// response.failed codes.
		{group: "response.failed", name: "context_length_exceeded", script: func() rt.Script { return rt.Script{failed("context_length_exceeded", "too long")} },
			requests: 1, exit: exitcode.Failed, stderr: "context window is full"},
		{group: "response.failed", name: "insufficient_quota", script: func() rt.Script { return rt.Script{failed("insufficient_quota", "no credit")} },
			requests: 1, exit: exitcode.Quota, stderr: "quota exceeded"},
		{group: "response.failed", name: "usage_not_included", script: func() rt.Script { return rt.Script{failed("usage_not_included", "plan")} },
			requests: 1, exit: exitcode.Quota},
		{group: "response.failed", name: "invalid_prompt", script: func() rt.Script { return rt.Script{failed("invalid_prompt", "nope")} },
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: nope"},
		{group: "response.failed", name: "cyber_policy", script: func() rt.Script { return rt.Script{failed("cyber_policy", "flagged")} },
			requests: 1, exit: exitcode.Failed, stderr: "flagged"},
		{group: "response.failed", name: "misalignment_policy_violation", script: func() rt.Script { return rt.Script{failed("misalignment_policy_violation", "refused")} },
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: refused"},
		{group: "response.failed", name: "bio_policy", script: func() rt.Script { return rt.Script{failed("bio_policy", "refused")} },
			requests: 1, exit: exitcode.Failed, stderr: "the request was rejected: refused"},
		{group: "response.failed", name: "slow_down", script: func() rt.Script { return rt.Script{failed("slow_down", "slow down"), reply()} },
			requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok, stderr: "Model at capacity"},
		{group: "response.failed", name: "rate_limit_exceeded, try again in 1.5s", script: func() rt.Script {
			return rt.Script{failed("rate_limit_exceeded", "Please try again in 1.5s."), reply()}
		}, requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok, stderr: "Reconnecting... 1/5 in 1.5s"},
		{group: "response.failed", name: "server_is_overloaded", script: func() rt.Script { return rt.Script{failed("server_is_overloaded", "busy"), reply()} },
			requests: 2, waits: []time.Duration{1500 * ms}, stdout: ok, stderr: "Model at capacity"},
		{group: "response.failed", name: "server_error", script: func() rt.Script { return rt.Script{failed("server_error", "oops"), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "response.failed", name: "response.incomplete for a reason the spec does not name", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Incomplete("r", "")), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
	}
}

// malformedStreamRows are the fault matrix rows of group "malformed stream".
func malformedStreamRows() []faultRow {
	ms := time.Millisecond
	ok := "answer\n"
	return []faultRow{
		// Malformed streams.
		{group: "malformed stream", name: "a line of bad JSON is skipped", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Raw("data: {oops\n\n"), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok},
		{group: "malformed stream", name: "an event without data is skipped", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Raw("event: response.output_text.delta\n\n"), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok},
		{group: "malformed stream", name: "a 1 MiB event", script: func() rt.Script {
			big := strings.Repeat("x", 1<<20)
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", big), rt.Completed("r"))}
		}, requests: 1, stdout: strings.Repeat("x", 1<<20) + "\n", binary: true},
		{group: "malformed stream", name: "CRLF line endings", only: "sse", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Raw("data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"role\":\"assistant\",\"id\":\"m\",\"content\":[{\"type\":\"output_text\",\"text\":\"answer\"}]}}\r\n\r\n"), rt.Completed("r"))}
		}, requests: 1, stdout: ok},
		{group: "malformed stream", name: "keep-alives only, then EOF", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Comment("ping"), rt.Comment("ping"), rt.End()), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "malformed stream", name: "unknown event types are ignored", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Event("response.brand_new", map[string]any{"x": 1}), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok},
		{group: "malformed stream", name: "a delta that is a number is named; the answer stands", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.Event("response.output_text.delta", map[string]any{"item_id": "m", "delta": 5}), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok, stderr: `warning: the server sent response.output_text.delta (item m) that agent could not read: "delta" is a number, not a string; it was left out`},
		{group: "malformed stream", name: "an item whose content is a string is named and left out", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), malformedItem(), rt.MessageDone("m", "answer"), rt.Completed("r"))}
		}, requests: 1, stdout: ok, stderr: `(item m0) that agent could not read: "content" is a string, not an array of parts; it was left out`},
		{group: "malformed stream", name: "a content part of an unknown type is named; the rest is used", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.OutputItemDone(map[string]any{"type": "message", "id": "m", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": "answer"}, map[string]any{"type": "output_audio", "data": "AAA"}}}), rt.Completed("r"))}
		}, requests: 1, stdout: ok, stderr: `content part 2 is of type "output_audio", which agent does not read; the rest of the item was used`},
	}
}

// cutStreamRows are the fault matrix rows of group "cut stream".
func cutStreamRows() []faultRow {
	ms := time.Millisecond
	s := time.Second
	ok := "answer\n"
	return []faultRow{
		// Cuts at each point of a stream.
		{group: "cut stream", name: "reset right after the headers", script: func() rt.Script { return rt.Script{rt.Stream(rt.Drop()), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "stream disconnected before completion"},
		{group: "cut stream", name: "reset after response.created", script: func() rt.Script { return rt.Script{rt.Stream(rt.Created("r"), rt.Drop()), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "cut stream", name: "reset mid-answer: no fragment on stdout", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAGMENT"), rt.Drop()), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "cut stream", name: "clean EOF before response.completed", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.End()), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "cut stream", name: "a message completes, response.completed never comes, the retry answers: stdout holds the final answer once", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m1", "first"), rt.Drop()), rt.Reply("r2", "m2", "second")}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: "second\n"},
		{group: "cut stream", name: "every attempt cut, auto-continue off: budgets run out", only: "sse",
			extra: "[model_providers.fake.auto_continue]\nenabled = false\n", script: func() rt.Script {
				c := rt.Stream(rt.Created("r"), rt.Drop())
				return rt.Script{c, c, c, c, c, c}
			}, requests: 6, waits: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}, exit: exitcode.Exhausted, stderr: "gave up after retries"},
		{group: "cut stream", name: "every attempt cut: continued twice, then paused", only: "sse",
			extra: "stream_max_retries = 1\n[auto_continue]\ndelays_ms = [10000, 20000]\n", script: func() rt.Script {
				c := rt.Stream(rt.Created("r"), rt.Drop())
				return rt.Script{c, c, c, c, c, c}
			}, requests: 4, waits: []time.Duration{200 * ms, 10 * s, 20 * s}, exit: exitcode.Exhausted,
			stderr: "turn paused, gave up after retries"},
		{group: "cut stream", name: "cut twice, continued, then answered", only: "sse",
			extra: "stream_max_retries = 1\n", script: func() rt.Script {
				c := rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAGMENT"), rt.Drop())
				return rt.Script{c, c, reply()}
			}, requests: 3, waits: []time.Duration{200 * ms, 10 * s}, stdout: ok, stderr: "Continuing the turn 1/3 in 10s"},
	}
}

// loginPage is what a captive portal or a proxy's login answers.
const loginPage = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>login</body></html>"

// boundSaid is how a turn that spent the time bound says so.
const boundSaid = "gave up after waiting 45s in all to retry, the bound of [retry] max_wait_ms = 50000 " +
	"(raise it in config.toml, or pass -c retry.max_wait_ms=200000, to wait longer)"

// neverClearsRows are the fault matrix rows of group "never clears".
func neverClearsRows() []faultRow {
	ms := time.Millisecond
	s := time.Second
	ok := "answer\n"
	return []faultRow{
		// Failures that never clear (issues 16 and 42): what one turn costs at
		// most, with the defaults (request_max_retries 4, stream_max_retries
		// 5, auto-continue 10 s, 20 s, 60 s; each continuation is one
		// request) inside the one time bound, [retry] max_wait_ms = 50 s: the
		// waits of every layer add up to at most 45 s (5 s kept for the
		// attempts), the last one shortened to fit, and the turn pauses
		// (exit 5) naming the bound and how to wait longer.
		{group: "never clears", name: "HTTP 500 forever: nested 5 × 6, then continuations until the 50 s bound", only: "sse",
			script: forever(rt.Status(500)), requests: 32,
			waits: cat(nested(), []time.Duration{10 * s, 10800 * ms}),
			exit:  exitcode.Exhausted, stderr: "turn paused, gave up after retries: 500 Internal Server Error; " + boundSaid},
		{group: "never clears", name: "HTTP 500 forever over WebSocket: 1 + 5 handshakes, fall back, then as over HTTPS until the bound", only: "ws",
			script: forever(rt.Status(500)), requests: 38,
			waits: cat([]time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}, nested(), []time.Duration{10 * s, 4600 * ms}),
			exit:  exitcode.Exhausted, stderr: boundSaid},
		{group: "never clears", name: "HTTP 503 HTML page forever: as a 500, its title named", only: "sse",
			script: forever(rt.StatusBody(503, "<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>", "Content-Type", "text/html")), requests: 32,
			waits: cat(nested(), []time.Duration{10 * s, 10800 * ms}),
			exit:  exitcode.Exhausted, stderr: "503 Service Temporarily Unavailable; " + boundSaid},
		{group: "never clears", name: "HTTP 503 HTML page forever over WebSocket: handshakes, fall back, then as over HTTPS", only: "ws",
			script: forever(rt.StatusBody(503, "<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>", "Content-Type", "text/html")), requests: 38,
			waits: cat([]time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}, nested(), []time.Duration{10 * s, 4600 * ms}),
			exit:  exitcode.Exhausted, stderr: "503 Service Temporarily Unavailable; " + boundSaid},
		{group: "never clears", name: "5xx forever with request_max_retries = 1 over WebSocket", only: "ws", extra: "request_max_retries = 1\n",
			script: forever(rt.Status(500)), requests: 21,
			waits: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 200 * ms, 200 * ms, 200 * ms, 400 * ms, 200 * ms, 800 * ms, 200 * ms, 1600 * ms, 200 * ms, 3200 * ms, 200 * ms, 10 * s, 20 * s, 1400 * ms},
			exit:  exitcode.Exhausted, stderr: boundSaid},
		{group: "never clears", name: "5xx forever with request_max_retries = 1: continuations inside the bound", only: "sse", extra: "request_max_retries = 1\n",
			script: forever(rt.Status(500)), requests: 15,
			waits: []time.Duration{200 * ms, 200 * ms, 200 * ms, 400 * ms, 200 * ms, 800 * ms, 200 * ms, 1600 * ms, 200 * ms, 3200 * ms, 200 * ms, 10 * s, 20 * s, 7600 * ms},
			exit:  exitcode.Exhausted, stderr: boundSaid},
		{group: "never clears", name: "429 + Retry-After: 1 forever: retried in the stream layer only, each after the server's delay",
			script: forever(rt.Status(429, "Retry-After", "1")), requests: 9,
			waits: []time.Duration{s, s, s, s, s, 10 * s, 20 * s, 10 * s}, exit: exitcode.Exhausted, stderr: "Reconnecting... 5/5 in 1.0s (429"},
		{group: "never clears", name: "429 forever without a server delay: the rate-limit backoff, then a continuation, until the bound",
			script: forever(rt.Status(429)), requests: 8,
			waits: []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 10 * s, 4 * s}, exit: exitcode.Exhausted, stderr: "429 Too Many Requests; " + boundSaid},
		{group: "never clears", name: "the stream is cut mid-answer forever: the continuation prompt is carried once", only: "sse",
			script: forever(rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAGMENT"), rt.Drop())), requests: 9,
			waits: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 10 * s, 20 * s, 8800 * ms},
			exit:  exitcode.Exhausted, stderr: "turn paused", check: continuationOnce},
		{group: "never clears", name: "the stream is cut mid-answer forever over WebSocket: the stream budget twice (WS, then HTTPS)", only: "ws",
			script: forever(rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAGMENT"), rt.Drop())), requests: 15,
			waits: cat(seq(2, 200*ms, 400*ms, 800*ms, 1600*ms, 3200*ms), []time.Duration{10 * s, 20 * s, 2600 * ms}),
			exit:  exitcode.Exhausted, stderr: "Falling back", check: continuationOnce},
		{group: "never clears", name: "WebSocket handshake answered 500, HTTPS works: 1 + stream_max_retries handshakes, then one POST", only: "ws",
			script: func() rt.Script { return append(slices.Repeat(rt.Script{rt.Status(500)}, 6), reply()) }, requests: 7,
			waits: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}, stdout: ok, stderr: "Falling back",
			check: func(t *testing.T, reqs []rt.Request) {
				var gets, posts int
				for _, r := range reqs {
					if r.Method == http.MethodGet {
						gets++
					} else {
						posts++
					}
				}
				if gets != 6 || posts != 1 {
					t.Errorf("%d handshakes and %d POSTs; want 6 and 1", gets, posts)
				}
			}},
		{group: "never clears", name: "503 at capacity forever: the overload schedule until the bound (the third wait shortened)",
			script: forever(rt.Error(503, "server_error", "", "Selected model is at capacity. Please try a different model.")), requests: 4,
			waits: []time.Duration{1500 * ms, 7500 * ms, 36 * s}, exit: exitcode.Exhausted, stderr: "503 Selected model is at capacity. Please try a different model.; " + boundSaid},
		{group: "never clears", name: "503 at capacity forever with [retry] max_wait_ms = 0: the whole overload schedule, then continuations (11m24s of waits)",
			extraTop: "[retry]\nmax_wait_ms = 0\n",
			script:   forever(rt.Error(503, "server_error", "", "Selected model is at capacity. Please try a different model.")), requests: 9,
			waits: []time.Duration{1500 * ms, 7500 * ms, 45 * s, 180 * s, 360 * s, 10 * s, 20 * s, 60 * s}, exit: exitcode.Exhausted, stderr: "Model at capacity; retrying 5/5 in 6m0s"},
		{group: "never clears", name: "200 with an HTML login page forever: not an event stream, said at once", only: "sse",
			script:   forever(rt.StatusBody(200, loginPage, "Content-Type", "text/html")),
			requests: 1, exit: exitcode.Failed, stderr: "the server answered with an HTML page, not an event stream: Sign in"},
		{group: "never clears", name: "200 with an HTML login page forever over WebSocket: the handshake falls back, then said at once", only: "ws",
			script:   forever(rt.StatusBody(200, loginPage, "Content-Type", "text/html")),
			requests: 2, exit: exitcode.Failed, stderr: "the server answered with an HTML page, not an event stream: Sign in"},
		{group: "never clears", name: "429 + Retry-After: 3600: no request before the server's time, the turn pauses at once",
			script: func() rt.Script { return rt.Script{rt.Status(429, "Retry-After", "3600")} }, requests: 1,
			exit: exitcode.Exhausted, stderr: "turn paused: the server asked to wait until"},
		{group: "never clears", name: "an API key with a line break: refused locally, no request",
			script: func() rt.Script { return nil }, env: map[string]string{"FAKE_KEY": "sk-test-canary-0000\nX"},
			exit: exitcode.Auth, stderr: "the credential from environment variable FAKE_KEY contains a line break"},
		{group: "never clears", name: "a configured header with CR/LF: refused locally, no request",
			script: func() rt.Script { return nil }, extra: "http_headers = { \"X-Team\" = \"a\\r\\nb\" }\n",
			exit: exitcode.Usage, stderr: "model_providers.fake.http_headers.X-Team"},
	}
}

// eventsRows are the fault matrix rows of group "events".
func eventsRows() []faultRow {
	ms := time.Millisecond
	ok := "answer\n"
	return []faultRow{
		// Events (issue 16).
		{group: "events", name: "one 10 MiB event is answered", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", strings.Repeat("y", 10<<20)), rt.Completed("r"))}
		}, requests: 1, stdout: strings.Repeat("y", 10<<20) + "\n", binary: true},
		{group: "events", name: "response.completed with \"input_tokens\": 10.0 is accepted", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", "answer"), rt.Event("response.completed", map[string]any{
				"response": map[string]any{"id": "r", "usage": map[string]any{"input_tokens": json.Number("10.0"), "output_tokens": json.Number("5.0"), "total_tokens": json.Number("15.0")}},
			}))}
		}, requests: 1, stdout: ok, stderr: "tokens used: 15"},
		{group: "events", name: "an undecodable final event is retried once; the answer is printed once", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", "answer"), rt.Event("response.completed", map[string]any{"response": "garbage"})), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "events", name: "an undecodable final event forever: retried once, not continued", script: forever(
			rt.Stream(rt.Created("r"), rt.MessageDone("m", "answer"), rt.Event("response.completed", map[string]any{"response": "garbage"}))),
			requests: 2, waits: []time.Duration{200 * ms}, exit: exitcode.Exhausted, stderr: "could not be decoded"},
	}
}

// websocketRows are the fault matrix rows of group "WebSocket".
func websocketRows() []faultRow {
	ms := time.Millisecond
	s := time.Second
	ok := "answer\n"
	return []faultRow{
		// WebSocket specifics.
		{group: "WebSocket", name: "handshake answered 426: HTTPS at once", only: "ws", script: func() rt.Script { return rt.Script{rt.Status(426), reply()} },
			requests: 2, stdout: ok, stderr: "Falling back from WebSockets to HTTPS transport"},
		{group: "WebSocket", name: "handshake answered 404 by a proxy: HTTPS at once", only: "ws", script: func() rt.Script { return rt.Script{rt.Status(404), reply()} },
			requests: 2, stdout: ok, stderr: "Falling back"},
		{group: "WebSocket", name: "handshake and POST both answered 400: one fallback, one failure", only: "ws", script: func() rt.Script {
			e := rt.Error(400, "invalid_request_error", "", "Unknown parameter: 'foo'")
			return rt.Script{e, e}
		}, requests: 2, exit: exitcode.Failed, stderr: "the request was rejected: Unknown parameter"},
		{group: "WebSocket", name: "handshake answered 401: auth, not fallback", only: "ws", script: func() rt.Script { return rt.Script{rt.Status(401)} },
			requests: 1, exit: exitcode.Auth, stderr: "authentication failed"},
		{group: "WebSocket", name: "handshake answered 503 Retry-After: 1: the stream layer waits the server's delay", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Status(503, "Retry-After", "1"), reply()}
		}, requests: 2, waits: []time.Duration{time.Second}, stdout: ok},
		{group: "WebSocket", name: "close frame 1011 mid-stream", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.CloseWS(1011, "internal error")), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "status 1011"},
		{group: "WebSocket", name: "close frame 1009 (message too big): HTTPS at once, no wait", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.CloseWS(1009, "message too big")), reply()}
		}, requests: 2, stdout: ok, stderr: "Falling back from WebSockets to HTTPS transport",
			check: func(t *testing.T, reqs []rt.Request) {
				if len(reqs) == 2 && (reqs[0].Method != "WS" || reqs[1].Method != http.MethodPost) {
					t.Errorf("requests %s, %s; want WS then POST", reqs[0].Method, reqs[1].Method)
				}
			}},
		{group: "WebSocket", name: "close frame 4000", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Created("r"), rt.CloseWS(4000, "bye")), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "WebSocket", name: "binary frame", only: "ws", script: func() rt.Script { return rt.Script{rt.Stream(rt.Binary("\x00")), reply()} },
			requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "WebSocket", name: "error event: connection limit reached", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Event("error", map[string]any{"status": 400, "error": map[string]any{"code": "websocket_connection_limit_reached", "message": "60 minutes"}})), reply()}
		}, requests: 2, waits: []time.Duration{200 * ms}, stdout: ok},
		{group: "WebSocket", name: "wrapped 429 error event with Retry-After", only: "ws", script: func() rt.Script {
			return rt.Script{rt.Stream(rt.Event("error", map[string]any{"status": 429, "error": map[string]any{"code": "rate_limit_exceeded", "message": "Please try again in 2s."}})), reply()}
		}, requests: 2, waits: []time.Duration{2 * s}, stdout: ok},
		{group: "WebSocket", name: "stream budget exhausted on WS: fall back, counter reset", only: "ws", extra: "stream_max_retries = 1\n", script: func() rt.Script {
			c := rt.Stream(rt.Created("r"), rt.Drop())
			return rt.Script{c, c, reply()}
		}, requests: 3, waits: []time.Duration{200 * ms}, stdout: ok, stderr: "Falling back from WebSockets to HTTPS transport"},
	}
}

// continuationOnce checks that no request carries the continuation prompt
// more than once.
func continuationOnce(t *testing.T, reqs []rt.Request) {
	t.Helper()
	for i, r := range reqs {
		if n := strings.Count(string(r.Body), "Your previous response was cut off"); n > 1 {
			t.Errorf("request %d carries the continuation prompt %d times", i+1, n)
		}
	}
}

// TestFaultMatrix runs every row over each transport it applies to.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	rows := faultRows()
	if len(rows) < 30 {
		t.Fatalf("the matrix has %d rows; the issue asks for at least 30", len(rows))
	}
	for _, row := range rows {
		for _, tr := range []string{"sse", "ws"} {
			if row.only != "" && row.only != tr {
				continue
			}
			t.Run(row.group+"/"+row.name+"/"+tr, func(t *testing.T) {
				t.Parallel() // each row has its own server and AGENT_HOME
				srv := rt.NewServer(t, row.script())
				cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n" +
					fmt.Sprintf("supports_websockets = %v\n", tr == "ws") + row.extra + row.extraTop
				env := map[string]string{"TZ": "UTC"}
				for k, v := range row.env {
					env[k] = v
				}
				var r execRun
				if row.binary {
					r = runBinary(t, srv, cfg, env, "exec", "hi")
				} else {
					r = runCLI(t, srv, runOpts{config: cfg, env: env}, "exec", "hi")
				}
				if r.code != row.exit {
					t.Errorf("exit %d; want %d\nstderr:\n%s", r.code, row.exit, r.stderr)
				}
				if r.stdout != row.stdout {
					t.Errorf("stdout = %.200q; want %.200q", r.stdout, row.stdout)
				}
				if !strings.Contains(r.stderr, row.stderr) {
					t.Errorf("stderr lacks %q:\n%s", row.stderr, r.stderr)
				}
				if n := len(srv.Requests()); n != row.requests {
					t.Errorf("%d requests; want %d", n, row.requests)
				}
				if row.group == "never clears" && row.extraTop == "" && (sum(r.sleeps) > 45*time.Second || len(srv.Requests()) > 40) {
					t.Errorf("a failure that never clears cost %d requests and %v of waits; the bound is 40 and 45 s (50 s with the attempts)",
						len(srv.Requests()), sum(r.sleeps))
				}
				if diff := cmp.Diff(row.waits, r.sleeps); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
				if row.check != nil {
					row.check(t, srv.Requests())
				}
				checkRollout(t, r, row)
			})
		}
	}
	checkFailureDoc(t, rows)
}

// runBinary is runCLI with the built binary: config (with %URL%) in a new
// AGENT_HOME, env added to it; no waits are recorded.
func runBinary(t *testing.T, srv *rt.Server, config string, env map[string]string, args ...string) execRun {
	t.Helper()
	bin := buildAgent(t)
	home := writeHome(t, strings.ReplaceAll(config, "%URL%", srv.URL))
	cmd, _, _ := agentCmd(t, bin, home, args...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// Output goes to files, each read once at the end: megabytes copied
	// through a pipe into a growing buffer cost seconds under the race
	// detector (the answer is on both: stderr shows the transcript).
	dir := t.TempDir()
	files := map[string]*os.File{}
	for _, name := range []string{"stdout", "stderr"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[name] = f
	}
	cmd.Stdout, cmd.Stderr = files["stdout"], files["stderr"]
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("agent: %v", err)
		}
		code = ee.ExitCode()
	}
	stdout, err := os.ReadFile(files["stdout"].Name())
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.ReadFile(files["stderr"].Name())
	if err != nil {
		t.Fatal(err)
	}
	r := execRun{code: code, stdout: string(stdout), stderr: string(stderr), home: home}
	assertNoSecret(t, r)
	return r
}

// writeHome is a new AGENT_HOME holding config.toml.
func writeHome(t *testing.T, config string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// checkRollout checks what is on disk: the session's rollout says how the
// turn ended, and holds every answer that reached stdout.
func checkRollout(t *testing.T, r execRun, row faultRow) {
	t.Helper()
	ent, err := rollout.Latest(t.Context(), r.home, "", true)
	if err != nil {
		t.Fatalf("no rollout recorded: %v", err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := rollout.TurnCompleted
	if row.exit != exitcode.OK && row.exit != exitcode.Refused {
		want = rollout.TurnFailed
	}
	if ro.LastTurn != want || len(ro.Warnings) != 0 {
		t.Errorf("rollout last turn = %q (warnings %v); want %q", ro.LastTurn, ro.Warnings, want)
	}
	var texts []string
	for _, it := range ro.History {
		if it.Type == "message" && it.Role == "assistant" {
			texts = append(texts, it.Text()+"\n")
		}
	}
	// Every answer printed is recorded (a message of an attempt that
	// failed is recorded, not printed: the retry answers).
	if got := strings.Join(texts, ""); !strings.HasSuffix(got, row.stdout) {
		t.Errorf("recorded answers = %.100q; want them to end with %.100q", got, row.stdout)
	}
}

// checkFailureDoc compares docs/failure-behaviour.md with the table.
func checkFailureDoc(t *testing.T, rows []faultRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# What agent does when things fail\n\n")
	b.WriteString("Generated from the fault matrix in `cmd/agent/faultmatrix_test.go` (`go test ./cmd/agent -run TestFaultMatrix -update`);\n")
	b.WriteString("every row is a test that runs `agent exec hi` against the in-repo fake server, over HTTPS (SSE) and\n")
	b.WriteString("WebSocket unless the row says otherwise. Waits are the exact delays slept (jitter fixed at its midpoint);\n")
	b.WriteString("stdout is what a script capturing standard output receives. On disk, every row leaves one readable rollout\n")
	b.WriteString("(`$AGENT_HOME/sessions/...`) whose last turn is marked completed (exit 0) or failed, holding every answer printed (a message of an attempt that\n")
	b.WriteString("failed is recorded but not printed: the retry answers).\n")
	b.WriteString("Stalls (idle and no-progress timers) run on a fake clock in `transport/sse`, `transport/ws` and `session` tests;\n")
	b.WriteString("401 refresh paths are in `cmd/agent/login_test.go` and `modelclient/auth_test.go`; `agent proxy` in the middle is\n")
	b.WriteString("`TestFaultMatrixThroughProxy` (the proxy absorbs failures before the first byte, agent handles cuts after it).\n\n")
	b.WriteString("Every retry runs through the one retry driver (package `retry`) and spends exactly one budget: `http`\n")
	b.WriteString("(request_max_retries, before the first byte: 5xx, timeouts, connect errors), `stream` (stream_max_retries, the whole\n")
	b.WriteString("request: cuts, failed or incomplete responses, WebSocket handshakes, 429), `overload` (its own schedule),\n")
	b.WriteString("`connection` (exec and batch: up to connection_max_wait_ms in all; the chat waits until Esc) and `continue` (the\n")
	b.WriteString("turn, continued over its history; each continuation is one request, the nested budgets are not renewed). A server\n")
	b.WriteString("delay beyond its class's cap pauses the turn at once (exit 5, naming the time); what cannot change is not retried.\n")
	b.WriteString("A remote host refusing connections is `TestExecStopsAfterConnectionMaxWait` (both transports): the connection\n")
	b.WriteString("layer alone retries it (5 s doubling to 60 s) until its waits add up to connection_max_wait (10 min; a 20 s cap ends\n")
	b.WriteString("at 20 s), then exit 5, not continued. Nothing listening on this machine's address (`TestExecLocalServerNotRunning`):\n")
	b.WriteString("five quick tries on the stream budget (6.2 s), then exit 5 naming the address and what usually listens there\n")
	b.WriteString("(11434: \"is Ollama running?\", 1234: LM Studio, 8000: vLLM, 4000: LiteLLM, 8787: `agent proxy`).\n")
	group := ""
	for _, r := range rows {
		if r.group != group {
			group = r.group
			fmt.Fprintf(&b, "\n## %s\n\n| scenario | transports | requests | waits | exit | stdout | stderr says |\n|---|---|---|---|---|---|---|\n", group)
		}
		tr := "both"
		if r.only != "" {
			tr = r.only
		}
		var waits []string
		for _, w := range r.waits {
			waits = append(waits, w.String())
		}
		out := strings.TrimSuffix(r.stdout, "\n")
		if len(out) > 30 {
			out = fmt.Sprintf("%d bytes", len(r.stdout))
		}
		out = strings.ReplaceAll(out, "\n", "⏎")
		if out == "" {
			out = "(nothing)"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %s | %s |\n", r.name, tr, r.requests, strings.Join(waits, ", "), r.exit, out, r.stderr)
	}
	writeCodeTable(&b)
	path := filepath.Join("..", "..", "docs", "failure-behaviour.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != b.String() {
		t.Errorf("docs/failure-behaviour.md is out of date with the matrix; run go test ./cmd/agent -run TestFaultMatrix -update")
	}
}

// TestFaultMatrixThroughProxy puts `agent proxy` between agent and a
// flaky upstream: the proxy absorbs what it can before the first byte, and
// agent's own layers handle what reaches it.
func TestFaultMatrixThroughProxy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		script        rt.Script
		upstream      int // requests the upstream sees
		agentRequests int // requests agent makes to the proxy
		proxyWaits    []time.Duration
		agentWaits    []time.Duration
		stdout        string
		exit          int
	}{
		{"503 at capacity twice: the proxy retries, agent sees one clean stream",
			rt.Script{rt.Error(503, "server_error", "", "Selected model is at capacity."), rt.Error(503, "server_error", "", "Selected model is at capacity."), reply()},
			3, 1, []time.Duration{time.Second, 5 * time.Second}, nil, "answer\n", exitcode.OK},
		{"error in the first event: the proxy retries",
			rt.Script{failed("server_error", "boom"), reply()}, 2, 1, []time.Duration{180 * time.Millisecond}, nil, "answer\n", exitcode.OK},
		{"cut after bytes were streamed: the proxy passes it through, agent retries",
			rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "FRAGMENT"), rt.Drop()), reply()}, 2, 2, nil, []time.Duration{200 * time.Millisecond}, "answer\n", exitcode.OK},
		{"400: passed through once, not retried by either",
			rt.Script{rt.Error(400, "invalid_request_error", "", "bad")}, 1, 1, nil, nil, "", exitcode.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := rt.NewServer(t, tt.script)
			u, _ := url.Parse(up.URL)
			var mu sync.Mutex
			var proxyWaits []time.Duration
			px, err := proxy.New(proxy.Options{
				Upstream: u,
				Sleep: func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					proxyWaits = append(proxyWaits, d)
					mu.Unlock()
					return ctx.Err()
				},
				Rand:   func() float64 { return 0 }, // jitter at its low end: x0.9, or x1 for overload
				Logger: slog.New(slog.DiscardHandler),
			})
			if err != nil {
				t.Fatal(err)
			}
			var seen atomic.Int32
			counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen.Add(1)
				px.ServeHTTP(w, r)
			}))
			defer counting.Close()
			cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + counting.URL + "/v1\"\n"
			r := runCLI(t, nil, runOpts{config: cfg, stdinTTY: true}, "exec", "--no-auto-continue", "hi")
			if r.code != tt.exit || r.stdout != tt.stdout {
				t.Errorf("exit %d stdout %q; want %d %q\n%s", r.code, r.stdout, tt.exit, tt.stdout, r.stderr)
			}
			if n := len(up.Requests()); n != tt.upstream {
				t.Errorf("upstream saw %d requests; want %d", n, tt.upstream)
			}
			if n := int(seen.Load()); n != tt.agentRequests {
				t.Errorf("agent made %d requests; want %d", n, tt.agentRequests)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.proxyWaits, proxyWaits); diff != "" {
				t.Errorf("proxy waits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.agentWaits, r.sleeps); diff != "" {
				t.Errorf("agent waits (-want +got):\n%s", diff)
			}
		})
	}
}

// deadAddress returns an address of this machine on ip's family where
// nothing listens (a port just closed).
func deadAddress(t *testing.T, ip string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// remoteIP returns a non-loopback address of this machine: refused there
// stands for a remote host that cannot be reached.
func remoteIP(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}

// TestExecStopsAfterConnectionMaxWait: a host that is not this machine
// refuses connections. The connection layer alone retries them (5 s
// doubling to 60 s; the HTTP layer leaves connect failures to it), so
// exec stops once its waits add up to connection_max_wait (default 10
// min; 20 s when set so), exit 5, and does not continue the turn.
func TestExecStopsAfterConnectionMaxWait(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	wsWaits := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms} // handshakes, then HTTPS
	for _, tt := range []struct {
		name, extra, says string
		conn              []time.Duration
	}{
		{"default", "", "gave up after waiting 10m0s for a connection",
			append(append([]time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second}, seq(8, time.Minute)...), 45*time.Second)},
		{"20 s cap", "connection_max_wait_ms = 20000\n", "gave up after waiting 20s for a connection",
			[]time.Duration{5 * time.Second, 10 * time.Second, 5 * time.Second}},
	} {
		for _, tr := range []string{"sse", "ws"} {
			t.Run(tt.name+"/"+tr, func(t *testing.T) {
				url := "http://" + deadAddress(t, remoteIP(t))
				cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + url + "\"\nenv_key = \"FAKE_KEY\"\n" +
					fmt.Sprintf("supports_websockets = %v\n", tr == "ws") + tt.extra
				r := runCLI(t, nil, runOpts{config: cfg}, "exec", "hi")
				if r.code != exitcode.Exhausted || r.stdout != "" || !strings.Contains(r.stderr, tt.says) {
					t.Errorf("exit %d stdout %q; want 5, nothing and %q\n%s", r.code, r.stdout, tt.says, r.stderr)
				}
				var want, total []time.Duration
				if tr == "ws" {
					want = slices.Clone(wsWaits)
				}
				want, total = append(want, tt.conn...), tt.conn
				var sum time.Duration
				for _, d := range total {
					sum += d
				}
				if tt.extra != "" && sum != 20*time.Second || tt.extra == "" && sum != 10*time.Minute {
					t.Fatalf("the expected connection waits add up to %v", sum)
				}
				if diff := cmp.Diff(want, r.sleeps); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestExecLocalServerNotRunning: a loopback address refuses connections
// (Ollama, LM Studio, agent proxy not started): a few quick tries on the
// stream budget, then the turn ends naming the address and what usually
// listens there, instead of waiting for the network.
func TestExecLocalServerNotRunning(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	quick := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}
	for _, tr := range []string{"sse", "ws"} {
		t.Run(tr, func(t *testing.T) {
			addr := deadAddress(t, "127.0.0.1")
			cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"http://" + addr + "/v1\"\nenv_key = \"FAKE_KEY\"\n" +
				fmt.Sprintf("supports_websockets = %v\n", tr == "ws")
			r := runCLI(t, nil, runOpts{config: cfg}, "exec", "hi")
			says := "nothing is listening at " + addr + " on this machine: is the server at base_url running?"
			if r.code != exitcode.Exhausted || r.stdout != "" || !strings.Contains(r.stderr, says) {
				t.Errorf("exit %d stdout %q; want 5, nothing and %q\n%s", r.code, r.stdout, says, r.stderr)
			}
			if diff := cmp.Diff(quick, r.sleeps); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

// sum is the total of ds.
func sum(ds []time.Duration) (t time.Duration) {
	for _, d := range ds {
		t += d
	}
	return t
}
