package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// Route is where agent proxy forwards requests and what it adds to them:
// the [Options] of its target, and the retry gate it shares.
type Route struct {
	Upstream *url.URL
	Retry    map[string]provider.ClassPolicy
	Header   http.Header
	Query    url.Values
	// GateID names the machine-wide retry gate the proxy shares: the
	// provider's (with every agent process using it), else the upstream's.
	GateID string
	// Target describes the route for the start-up banner, credentials
	// left out.
	Target string
	// Wire is the wire_api the upstream speaks ("": the Responses API):
	// [Options].UpstreamWire.
	Wire string
}

// UpstreamRoute forwards to an explicit upstream (--upstream): nothing
// is added to requests, and retry is the policy (the global one).
func UpstreamRoute(upstream string, retry map[string]provider.ClassPolicy) (Route, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Route{}, fmt.Errorf("--upstream %q: want an absolute http:// or https:// URL", upstream)
	}
	return Route{Upstream: u, Retry: retry, GateID: "upstream-" + u.Host, Target: u.Redacted()}, nil
}

// ProviderRoute forwards to provider p's base_url with its http_headers,
// env_http_headers and query_params, its env_key's value as the bearer
// token (getenv reads the environment), under its retry policy, sharing
// its machine-wide gate. An unset env_key is said on warn: clients' own
// Authorization headers then pass through.
func ProviderRoute(p provider.Info, getenv func(string) string, warn io.Writer) (Route, error) {
	if p.Demo || p.BaseURL == "" {
		return Route{}, fmt.Errorf("provider %q has no base_url to forward to; give --upstream", p.ID)
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil {
		return Route{}, fmt.Errorf("provider %q base_url: %w", p.ID, err)
	}
	r := Route{Upstream: u, Retry: p.Retry, GateID: p.ID, Header: http.Header{}, Target: fmt.Sprintf("%s (provider %s)", u.Redacted(), p.ID), Wire: p.WireAPI}
	if p.WireAPI != "" && p.WireAPI != provider.WireAPIResponses {
		r.Target += fmt.Sprintf(", Responses requests bridged to wire_api = %q", p.WireAPI)
	}
	for k, v := range p.HTTPHeaders {
		r.Header.Set(k, v)
	}
	for k, name := range p.EnvHTTPHeaders {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			r.Header.Set(k, v)
		}
	}
	if p.EnvKey != "" {
		if key := strings.TrimSpace(getenv(p.EnvKey)); key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		} else {
			fmt.Fprintf(warn, "agent proxy: %s is not set; clients' own Authorization headers are passed through\n", p.EnvKey)
		}
	}
	if p.WireAPI == provider.WireAPIAnthropic && r.Header.Get("Authorization") != "" {
		// The Messages API reads the key from x-api-key, beside its
		// version, on every path (/messages relayed, /models).
		r.Header = modelclient.AnthropicHeader(r.Header)
	}
	if len(p.QueryParams) > 0 {
		r.Query = url.Values{}
		for k, v := range p.QueryParams {
			r.Query.Set(k, v)
		}
	}
	return r, nil
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
