package setup

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/internal/shellenv"
	"github.com/agentcli/agent/provider"
)

// credentialHeaders are request headers whose values are credentials.
func credentialHeaders() []string {
	return []string{"Authorization", "Api-Key", "X-Api-Key", "Proxy-Authorization"}
}

// AddEnvSecrets adds to s the credentials agent may take from its
// environment: every variable whose name matches *KEY*, *SECRET* or *TOKEN*
// (the names shell_environment_policy keeps from commands by default); the
// env_key and env_http_headers variables of p and of every configured
// provider; the MCP servers' bearer and header variables, credential
// headers, and env values of such names.
func AddEnvSecrets(s *redact.Set, environ []string, getenv func(string) string, cfg config.Config, p provider.Info) {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && shellenv.Match(shellenv.DefaultExcludes(), k) {
			s.Add(v)
		}
	}
	for _, info := range append([]provider.Info{p}, slices.Collect(maps.Values(cfg.Providers))...) {
		if info.EnvKey != "" {
			s.Add(getenv(info.EnvKey))
		}
		for _, name := range info.EnvHTTPHeaders {
			s.Add(getenv(name))
		}
	}
	for _, m := range cfg.MCPServers {
		if m.BearerTokenEnvVar != "" {
			s.Add(getenv(m.BearerTokenEnvVar))
		}
		for _, name := range m.EnvHTTPHeaders {
			s.Add(getenv(name))
		}
		for k, v := range m.HTTPHeaders {
			if isCredentialHeader(k) {
				s.Add(bearerValue(v)...)
			}
		}
		for k, v := range m.Env {
			if shellenv.Match(shellenv.DefaultExcludes(), k) {
				s.Add(v)
			}
		}
	}
	for k, v := range p.HTTPHeaders {
		if isCredentialHeader(k) {
			s.Add(bearerValue(v)...)
		}
	}
}

// credentialVars names the environment variables config says hold
// credentials: every provider's env_key and env_http_headers variables,
// and every MCP server's bearer_token_env_var and env_http_headers
// variables.
func credentialVars(cfg config.Config) []string {
	var names []string
	for _, p := range cfg.Providers {
		names = append(names, p.EnvKey)
		names = append(names, slices.Collect(maps.Values(p.EnvHTTPHeaders))...)
	}
	for _, m := range cfg.MCPServers {
		names = append(names, m.BearerTokenEnvVar)
		names = append(names, slices.Collect(maps.Values(m.EnvHTTPHeaders))...)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "" })
	slices.Sort(names)
	return slices.Compact(names)
}

// CommandEnvPolicy is [shell_environment_policy] with, unless
// ignore_default_excludes, the variables of [credentialVars] excluded
// too: they are agent's credentials whatever their names, which the
// default *KEY*/*SECRET*/*TOKEN* patterns may miss (MCP_BEARER, ACME_CRED).
func CommandEnvPolicy(cfg config.Config) shellenv.Policy {
	p := cfg.ShellEnvironmentPolicy
	if !p.IgnoreDefaultExcludes {
		p.Exclude = append(slices.Clone(p.Exclude), credentialVars(cfg)...)
	}
	return p
}

// addFileSecrets adds the credentials of an auth.json.
func addFileSecrets(s *redact.Set, f *auth.File) {
	if f == nil {
		return
	}
	s.Add(f.APIKey())
	if t := f.Tokens; t != nil {
		s.Add(t.AccessToken, t.RefreshToken, t.IDToken)
	}
}

// AddAuthFileSecrets adds the credentials of $AGENT_HOME/auth.json, if it
// can be read: they are credentials agent holds even when this provider
// does not use them. Reading it may tighten its mode; stderr is told so.
func AddAuthFileSecrets(s *redact.Set, home string, stderr io.Writer) {
	st := auth.NewStore(home, &auth.StoreOptions{Notice: stderrNotice(stderr)})
	if _, err := os.Stat(st.Path()); err != nil {
		return
	}
	if f, err := st.Load(); err == nil {
		addFileSecrets(s, f)
	}
}

// stderrNotice prints a credential store's notice on stderr, as agent's
// own ("agent: ...").
func stderrNotice(stderr io.Writer) func(msg string) {
	return func(msg string) { fmt.Fprintln(stderr, "agent: "+msg) }
}

func isCredentialHeader(name string) bool {
	for _, h := range credentialHeaders() {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// bearerValue returns a header value and, for "Bearer X" or "Basic X",
// X alone.
func bearerValue(v string) []string {
	out := []string{v}
	if scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " "); ok && (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "basic")) {
		out = append(out, rest)
	}
	return out
}

// secretsTransport adds the credentials of every request it sends to the
// set before the request leaves, so that whatever comes back (an error
// body, a header echoing them) is masked: the tokens of an auth command,
// refreshed OAuth tokens and keys all pass here. more, if not nil, returns
// other current credentials (a refreshed refresh token).
type secretsTransport struct {
	base    http.RoundTripper
	secrets *redact.Set
	more    func() []string
}

func (t *secretsTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	for _, h := range credentialHeaders() {
		for _, v := range r.Header.Values(h) {
			t.secrets.Add(bearerValue(v)...)
		}
	}
	if t.more != nil {
		t.secrets.Add(t.more()...)
	}
	return t.base.RoundTrip(r)
}

// WithSecrets returns a copy of hc whose requests add their credentials
// to s.
func WithSecrets(hc *http.Client, s *redact.Set, more func() []string) *http.Client {
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &secretsTransport{base: base, secrets: s, more: more}
	return &c
}

// ProxySecrets adds the credentials agent proxy may see to env.Secrets
// (those of its environment, of cfg and of home's auth.json) and returns
// hc with the credentials of every request it forwards learnt too: the
// key added upstream and those clients send are masked in its log.
func ProxySecrets(env Env, home string, cfg config.Config, hc *http.Client) *http.Client {
	AddEnvSecrets(env.Secrets, env.Environment(), env.Getenv, cfg, cfg.Provider)
	AddAuthFileSecrets(env.Secrets, home, env.Stderr)
	return WithSecrets(hc, env.Secrets, nil)
}
