package app

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/provider"
)

// ProxyRoute is where agent proxy forwards requests and what it adds to
// them.
type ProxyRoute struct {
	Upstream *url.URL
	Retry    map[string]provider.ClassPolicy
	Header   http.Header
	Query    url.Values
	// GateID names the machine-wide retry gate the proxy shares: the
	// provider's (with every agent process using it), else the upstream's.
	GateID string
}

// NewProxyRoute works out where requests go and what is added to them:
// an explicit upstream (nothing added; the global retry policy), or a
// provider's base_url with its headers, query and key (its retry policy).
// target describes the choice for the banner.
func NewProxyRoute(cfg config.Config, pc config.Proxy, env Env) (opts ProxyRoute, target string, err error) {
	switch {
	case pc.Upstream != "" && pc.Provider != "":
		return opts, "", errors.New("give --upstream or --provider, not both")
	case pc.MaxRetries < 0:
		return opts, "", fmt.Errorf("--max-retries must not be negative, got %d", pc.MaxRetries)
	case pc.MaxConcurrentRetries < 1:
		return opts, "", fmt.Errorf("--max-concurrent-retries must be at least 1, got %d", pc.MaxConcurrentRetries)
	case pc.Upstream != "":
		u, err := url.Parse(pc.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return opts, "", fmt.Errorf("--upstream %q: want an absolute http:// or https:// URL", pc.Upstream)
		}
		opts.Upstream, opts.Retry, opts.GateID = u, cfg.Retry, "upstream-"+u.Host
		return opts, u.Redacted(), nil
	}
	id := pc.Provider
	if id == "" {
		id = cfg.ModelProvider
	}
	info, ok := cfg.Providers[id]
	switch {
	case !ok:
		return opts, "", fmt.Errorf("unknown provider %q", id)
	case info.Demo || info.BaseURL == "":
		return opts, "", fmt.Errorf("provider %q has no base_url to forward to; give --upstream", id)
	}
	u, err := url.Parse(info.BaseURL)
	if err != nil {
		return opts, "", fmt.Errorf("provider %q base_url: %w", id, err)
	}
	opts.Upstream, opts.Retry, opts.GateID = u, info.Retry, id
	opts.Header = http.Header{}
	for k, v := range info.HTTPHeaders {
		opts.Header.Set(k, v)
	}
	for k, name := range info.EnvHTTPHeaders {
		if v := strings.TrimSpace(env.Getenv(name)); v != "" {
			opts.Header.Set(k, v)
		}
	}
	if info.EnvKey != "" {
		if key := strings.TrimSpace(env.Getenv(info.EnvKey)); key != "" {
			opts.Header.Set("Authorization", "Bearer "+key)
		} else {
			fmt.Fprintf(env.Stderr, "agent proxy: %s is not set; clients' own Authorization headers are passed through\n", info.EnvKey)
		}
	}
	if len(info.QueryParams) > 0 {
		opts.Query = url.Values{}
		for k, v := range info.QueryParams {
			opts.Query.Set(k, v)
		}
	}
	return opts, fmt.Sprintf("%s (provider %s)", u.Redacted(), id), nil
}

// CheckListen refuses an address other clients could reach unless
// allowRemote: the proxy adds the provider's credentials to every request.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", addr, err)
	}
	ip := net.ParseIP(strings.Split(host, "%")[0])
	if strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback()) || allowRemote {
		return nil
	}
	return fmt.Errorf("--listen %q is not a loopback address; anyone who can reach it would use your credentials (add --allow-remote to mean it)", addr)
}
