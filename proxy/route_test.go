package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/proxy"
)

// TestProviderRoute: a provider's requests get its headers (env_http_headers
// from the environment, unset ones left out), its key as the bearer token
// and its query parameters; the banner shows no credentials; the gate is
// the provider's, shared with every agent process using it.
func TestProviderRoute(t *testing.T) {
	env := map[string]string{"ACME_KEY": " sk-acme-secret \n", "ACME_ORG": "org-7"}
	p := provider.Info{
		ID: "acme", BaseURL: "https://user:pw@api.acme.example/v1",
		EnvKey:         "ACME_KEY",
		HTTPHeaders:    map[string]string{"X-Team": "blue"},
		EnvHTTPHeaders: map[string]string{"OpenAI-Organization": "ACME_ORG", "X-Unset": "ACME_UNSET"},
		QueryParams:    map[string]string{"api-version": "2025-04-01"},
		Retry:          map[string]provider.ClassPolicy{"overload": {MaxRetries: 9}},
	}
	var warn bytes.Buffer
	r, err := proxy.ProviderRoute(p, func(k string) string { return env[k] }, &warn)
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"X-Team": {"blue"}, "Openai-Organization": {"org-7"}, "Authorization": {"Bearer sk-acme-secret"}}
	if diff := cmp.Diff(want, r.Header); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if got := r.Query.Encode(); got != "api-version=2025-04-01" {
		t.Errorf("query %q", got)
	}
	if r.Upstream.String() != p.BaseURL || r.GateID != "acme" || r.Retry["overload"].MaxRetries != 9 {
		t.Errorf("route %+v", r)
	}
	if r.Target != "https://user:xxxxx@api.acme.example/v1 (provider acme)" || strings.Contains(r.Target, "pw") {
		t.Errorf("banner target %q", r.Target)
	}
	if warn.Len() != 0 {
		t.Errorf("warned %q with the key set", warn.String())
	}
}

// TestProviderRouteAnthropic: an Anthropic provider's key goes as
// x-api-key with anthropic-version, the headers the Messages API reads.
func TestProviderRouteAnthropic(t *testing.T) {
	p := provider.Info{ID: "claude", BaseURL: "https://api.anthropic.com/v1", EnvKey: "K", WireAPI: provider.WireAPIAnthropic}
	r, err := proxy.ProviderRoute(p, func(string) string { return "sk-ant-1" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"X-Api-Key": {"sk-ant-1"}, "Anthropic-Version": {"2023-06-01"}}
	if diff := cmp.Diff(want, r.Header); diff != "" || r.Wire != provider.WireAPIAnthropic {
		t.Errorf("headers (-want +got):\n%s; wire %q", diff, r.Wire)
	}
}

// TestProviderRouteWithoutKey: an unset env_key is said once, and the
// clients' own Authorization headers are left to pass.
func TestProviderRouteWithoutKey(t *testing.T) {
	var warn bytes.Buffer
	r, err := proxy.ProviderRoute(provider.Info{ID: "acme", BaseURL: "http://127.0.0.1:9/v1", EnvKey: "ACME_KEY"},
		func(string) string { return "  " }, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("Authorization %q with no key", r.Header.Get("Authorization"))
	}
	if want := "agent proxy: ACME_KEY is not set; clients' own Authorization headers are passed through\n"; warn.String() != want {
		t.Errorf("warning %q; want %q", warn.String(), want)
	}
}

// TestRouteErrors name what is wrong and with what.
func TestRouteErrors(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"demo", func() error {
			_, err := proxy.ProviderRoute(provider.Info{ID: "demo", Demo: true, BaseURL: "http://demo"}, getenv, nil)
			return err
		}, `provider "demo" has no base_url to forward to; give --upstream`},
		{"no base_url", func() error { _, err := proxy.ProviderRoute(provider.Info{ID: "x"}, getenv, nil); return err },
			`provider "x" has no base_url to forward to; give --upstream`},
		{"bad base_url", func() error {
			_, err := proxy.ProviderRoute(provider.Info{ID: "x", BaseURL: "http://[::1"}, getenv, nil)
			return err
		}, `provider "x" base_url: parse "http://[::1": missing ']' in host`},
		{"relative upstream", func() error { _, err := proxy.UpstreamRoute("api.example/v1", nil); return err },
			`--upstream "api.example/v1": want an absolute http:// or https:// URL`},
		{"ftp upstream", func() error { _, err := proxy.UpstreamRoute("ftp://api.example/v1", nil); return err },
			`--upstream "ftp://api.example/v1": want an absolute http:// or https:// URL`},
	} {
		if err := c.err(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// TestUpstreamRoute adds nothing to requests, keeps the policy it is
// given and shares a gate named for the upstream's host.
func TestUpstreamRoute(t *testing.T) {
	retry := map[string]provider.ClassPolicy{"stream": {MaxRetries: 3}}
	r, err := proxy.UpstreamRoute("https://tok:secret@api.example:8443/v1", retry)
	if err != nil {
		t.Fatal(err)
	}
	if r.Upstream.String() != "https://tok:secret@api.example:8443/v1" || r.Header != nil || r.Query != nil || r.GateID != "upstream-api.example:8443" || r.Retry["stream"].MaxRetries != 3 {
		t.Errorf("route %+v", r)
	}
	if r.Target != "https://tok:xxxxx@api.example:8443/v1" {
		t.Errorf("banner target %q", r.Target)
	}
}

// TestCheckListen: the proxy adds credentials to what it forwards, so
// only a loopback address is accepted unless --allow-remote says so.
func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		want   string // "" = accepted
	}{
		{"127.0.0.1:8787", false, ""},
		{"localhost:0", false, ""},
		{"LOCALHOST:1", false, ""},
		{"[::1]:8787", false, ""},
		{"[fe80::1%lo]:8787", false, `--listen "[fe80::1%lo]:8787" is not a loopback address; anyone who can reach it would use your credentials (add --allow-remote to mean it)`},
		{"0.0.0.0:8787", false, `--listen "0.0.0.0:8787" is not a loopback address; anyone who can reach it would use your credentials (add --allow-remote to mean it)`},
		{":8787", false, `--listen ":8787" is not a loopback address; anyone who can reach it would use your credentials (add --allow-remote to mean it)`},
		{"0.0.0.0:8787", true, ""},
		{"8787", false, `--listen "8787": address 8787: missing port in address`},
	} {
		err := proxy.CheckListen(c.addr, c.remote)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("CheckListen(%q, %v) = %q; want %q", c.addr, c.remote, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("CheckListen(%q, %v) accepted; want %q", c.addr, c.remote, c.want)
		}
	}
}
