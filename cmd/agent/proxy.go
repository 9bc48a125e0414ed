package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/proxy"
)

// proxyFlags are the flags of agent proxy; each overrides the [proxy] key
// of the same meaning when given.
type proxyFlags struct {
	listen        string
	upstream      string
	provider      string
	allowRemote   bool
	maxRetries    int
	maxConcurrent int
	ws            string
}

func newProxyCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	f := &proxyFlags{}
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run a local retrying proxy in front of an OpenAI-compatible API",
		Long: `Run a local reverse proxy that retries failed model requests for any
OpenAI-compatible client (the Codex CLI, the OpenAI SDKs, curl). Point the
client's base URL at http://LISTEN/v1 and turn the client's own retries
off, so retries do not multiply (see docs/proxy.md).

POST /v1/responses and /v1/chat/completions are retried with backoff when
the answer is a retryable failure (5xx, 429, "at capacity", an error as
the first stream event, a dropped connection), but only before anything
was sent to the client: once a stream starts it is relayed unbuffered and
never retried. Other paths are passed through once. WebSocket upgrades get
426 (clients fall back to HTTP) unless --ws passthrough.

Requests go to --upstream, or to the base_url of --provider (whose
http_headers, query_params and env_key credentials are added), or, with
neither, to the selected model_provider. Settings not given as flags come
from [proxy] in config.toml. One log line per request goes to standard
error (OK, RETRY, FAILED, GONE for a client that went away, and STATS
every 100 requests); GET /_proxy/stats returns the counters as JSON.
Ctrl-C stops the proxy gracefully: waiting requests are answered 503.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProxy(ctx, env, g, f, cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", config.DefaultProxyListen, "address to listen on ([proxy] listen)")
	fl.StringVar(&f.upstream, "upstream", "", "API root to forward to, e.g. https://api.openai.com/v1 ([proxy] upstream)")
	fl.StringVar(&f.provider, "provider", "", "forward to this config provider's base_url with its headers and env_key ([proxy] provider)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (anyone who can reach it uses your credentials)")
	fl.IntVar(&f.maxRetries, "max-retries", config.DefaultProxyMaxRetries, "re-sends of one request; 0 disables retries ([proxy] max_retries)")
	fl.IntVar(&f.maxConcurrent, "max-concurrent-retries", config.DefaultProxyMaxConcurrentRetries, "re-sends in flight at once; others wait ([proxy] max_concurrent_retries)")
	fl.StringVar(&f.ws, "ws", config.DefaultProxyWebSocket, `WebSocket upgrades: "reject" (426, clients fall back to HTTP) or "passthrough" ([proxy] websocket)`)
	return cmd
}

func runProxy(ctx context.Context, env Env, g *globalFlags, f *proxyFlags, cmd *cobra.Command) error {
	home, cfg, err := env.loadConfig(g)
	if err != nil {
		return err
	}
	pc := mergeProxyFlags(cfg.Proxy, f, cmd)
	if err := proxy.CheckListen(pc.Listen, f.allowRemote); err != nil {
		return usageError(err)
	}
	route, err := proxyRoute(cfg, pc, env)
	if err != nil {
		return usageError(err)
	}
	opts := proxy.Options{Upstream: route.Upstream, Retry: route.Retry, Header: route.Header, Query: route.Query, UpstreamWire: route.Wire,
		// A bridged Messages request's max_tokens is the catalogue's.
		OutputLimit: func(model string) int64 { m, _ := cfg.Catalog.Lookup(model); return m.Limit.Output }}
	httpClient, err := modelclient.NewHTTPClient(setup.CAFile(cfg, env.Getenv))
	if err != nil {
		return usageError(err)
	}
	// The key added upstream and those clients send are masked in the log.
	opts.Transport = setup.ProxySecrets(env.app(), home, cfg, httpClient).Transport
	opts.MaxRetries = pc.MaxRetries
	if pc.MaxRetries == 0 {
		opts.MaxRetries = -1 // proxy.Options: zero means the default
	}
	opts.AllowRemote = f.allowRemote
	opts.MaxConcurrentRetries = pc.MaxConcurrentRetries
	opts.MaxBodyBytes = pc.MaxBodyBytes
	opts.WebSocket = pc.WebSocket
	opts.Keywords = modelclient.Keywords{NonRetryable: pc.NonRetryableKeywords, Retryable: pc.RetryableKeywords}
	opts.Sleep, opts.Rand, opts.Now = env.Sleep, env.Rand, env.Now
	opts.Logger = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: setup.LogLevel(env.app(), g.logLevel)}))
	// The proxy shares the machine's retry gate of what it forwards to.
	opts.Gate = setup.OpenGate(env.app(), home, route.GateID, pc.MaxConcurrentRetries, opts.Logger)
	p, err := proxy.New(opts)
	if err != nil {
		return usageError(err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", pc.Listen)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("proxy: %w", err)}
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(env.Stderr, "agent proxy: listening on %s/v1 -> %s\n", base, route.Target)
	fmt.Fprintf(env.Stderr, "agent proxy: up to %d retries per request, %d at once; stats at %s%s; Ctrl-C to stop\n",
		max(pc.MaxRetries, 0), pc.MaxConcurrentRetries, base, proxy.StatsPath)
	if err := p.Serve(ctx, ln); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("proxy: %w", err)}
	}
	s := p.Stats()
	fmt.Fprintf(env.Stderr, "agent proxy: stopped after %d requests (%d retries, %d retry successes, %d failed, %d clients gone)\n",
		s.Requests, s.Retries, s.RetrySuccesses, s.Failed, s.ClientGone)
	return nil
}

// proxyRoute works out where requests go and what is added to them: an
// explicit upstream (nothing added; the global retry policy), or a
// provider's base_url with its headers, query and key (its retry policy),
// the selected model_provider when neither is given.
func proxyRoute(cfg config.Config, pc config.Proxy, env Env) (proxy.Route, error) {
	switch {
	case pc.Upstream != "" && pc.Provider != "":
		return proxy.Route{}, errors.New("give --upstream or --provider, not both")
	case pc.MaxRetries < 0:
		return proxy.Route{}, fmt.Errorf("--max-retries must not be negative, got %d", pc.MaxRetries)
	case pc.MaxConcurrentRetries < 1:
		return proxy.Route{}, fmt.Errorf("--max-concurrent-retries must be at least 1, got %d", pc.MaxConcurrentRetries)
	case pc.Upstream != "":
		return proxy.UpstreamRoute(pc.Upstream, cfg.Retry)
	}
	id := pc.Provider
	if id == "" {
		id = cfg.ModelProvider
	}
	info, ok := cfg.Providers[id]
	if !ok {
		return proxy.Route{}, fmt.Errorf("unknown provider %q", id)
	}
	return proxy.ProviderRoute(info, env.Getenv, env.Stderr)
}

// mergeProxyFlags lays the flags given on the command line over pc.
func mergeProxyFlags(pc config.Proxy, f *proxyFlags, cmd *cobra.Command) config.Proxy {
	fl := cmd.Flags()
	if fl.Changed("listen") {
		pc.Listen = f.listen
	}
	switch {
	case fl.Changed("upstream") && fl.Changed("provider"):
		pc.Upstream, pc.Provider = f.upstream, f.provider // rejected by proxyRoute
	case fl.Changed("upstream"):
		pc.Upstream, pc.Provider = f.upstream, ""
	case fl.Changed("provider"):
		pc.Upstream, pc.Provider = "", f.provider
	}
	if fl.Changed("max-retries") {
		pc.MaxRetries = f.maxRetries
	}
	if fl.Changed("max-concurrent-retries") {
		pc.MaxConcurrentRetries = f.maxConcurrent
	}
	if fl.Changed("ws") {
		pc.WebSocket = f.ws
	}
	return pc
}
