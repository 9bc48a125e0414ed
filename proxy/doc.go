// Package proxy is the local retrying reverse proxy behind `agent proxy`.
// Any OpenAI-compatible client (the Codex CLI, an SDK, curl) points its
// base URL at it and gets classified retries with backoff, without
// changing the client.
//
// Start with [New] and [Options], then [Proxy.Serve] on a listener (or
// mount the [Proxy] as an http.Handler). POST /v1/responses, POST
// /v1/chat/completions and POST /v1/messages (Anthropic's) are retried;
// every other path, and WebSocket
// upgrades when [Options].WebSocket is [WebSocketPassthrough], are passed
// through once. GET [StatsPath] answers the counters as JSON.
//
// Invariants:
//
//   - The commit boundary: a request is retried only while nothing has
//     been written to the client. The proxy looks at the status, the
//     headers and, for an event stream, the first event that is not a
//     lifecycle event (response.created, response.in_progress,
//     response.queued; the Messages API's message_start and ping);
//     lifecycle events before it are held back. Once it
//     writes the status line it relays the rest unbuffered, flushing every
//     chunk, and never retries; a stream that breaks after that point is
//     cut off for the client too.
//   - One classifier: what is retryable, its class and the server's delay
//     come from modelclient ([modelclient.ClassifyResponse],
//     [modelclient.ClassifyEvent], [modelclient.ClassifyRoundTrip]); the
//     wait comes from the class's [retry.Policy]. This package matches no
//     status codes or error strings of its own.
//   - A failure that is not retried, or outlasts the budget, reaches the
//     client as the upstream sent it: same status, headers and body.
//   - Only re-sends pass the gate ([Options].MaxConcurrentRetries); first
//     attempts never wait for it.
//   - Every wait goes through [Options].Sleep and ends with the request's
//     context, or when [Proxy.Serve] begins to shut down: the request is
//     then answered 503 proxy_shutting_down, never dropped. Nothing logs
//     request or response bodies or the Authorization header.
//   - A client that goes away (hangs up, or stops reading for
//     [Options].WriteTimeout) ends its upstream request and is counted
//     apart from upstream failures ([Stats].ClientGone, a GONE line).
//   - Every response carries X-Agent-Proxy: 1 and X-Agent-Proxy-Attempts.
package proxy
