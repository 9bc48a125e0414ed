package config

import "slices"

// Defaults of the [proxy] table.
const (
	DefaultProxyListen               = "127.0.0.1:8787"
	DefaultProxyMaxRetries           = 5
	DefaultProxyMaxConcurrentRetries = 3
	DefaultProxyMaxBodyBytes         = 32 << 20
	DefaultProxyWebSocket            = "reject"
)

// proxyWebSocketModes lists the values of proxy.websocket.
func proxyWebSocketModes() []string { return []string{"reject", "passthrough"} }

// Proxy is the [proxy] table: the settings of `agent proxy`, each of
// which a flag of the same meaning overrides.
type Proxy struct {
	// Listen is the address to listen on; [DefaultProxyListen] by default.
	Listen string
	// Upstream is the API root requests go to; "" = unset.
	Upstream string
	// Provider is the id of the provider whose base_url, headers and
	// env_key are used; "" = unset. With neither Upstream nor Provider,
	// the selected model_provider is used.
	Provider string
	// MaxRetries is the number of re-sends of one request;
	// [DefaultProxyMaxRetries] by default, 0 disables retries.
	MaxRetries int
	// MaxConcurrentRetries caps the re-sends in flight at once;
	// [DefaultProxyMaxConcurrentRetries] by default.
	MaxConcurrentRetries int
	// MaxBodyBytes caps a buffered request body;
	// [DefaultProxyMaxBodyBytes] by default.
	MaxBodyBytes int64
	// WebSocket is "reject" ([DefaultProxyWebSocket]) or "passthrough".
	WebSocket string
	// NonRetryableKeywords and RetryableKeywords replace the classifier's
	// default keyword lists when non-nil.
	NonRetryableKeywords []string
	RetryableKeywords    []string
}

// defaultProxy returns the [proxy] defaults.
func defaultProxy() Proxy {
	return Proxy{
		Listen:               DefaultProxyListen,
		MaxRetries:           DefaultProxyMaxRetries,
		MaxConcurrentRetries: DefaultProxyMaxConcurrentRetries,
		MaxBodyBytes:         DefaultProxyMaxBodyBytes,
		WebSocket:            DefaultProxyWebSocket,
	}
}

// proxyFile is [proxy] on disk.
type proxyFile struct {
	Listen               *string   `toml:"listen"`
	Upstream             *string   `toml:"upstream"`
	Provider             *string   `toml:"provider"`
	MaxRetries           *int64    `toml:"max_retries"`
	MaxConcurrentRetries *int64    `toml:"max_concurrent_retries"`
	MaxBodyBytes         *int64    `toml:"max_body_bytes"`
	WebSocket            *string   `toml:"websocket"`
	NonRetryableKeywords *[]string `toml:"non_retryable_keywords"`
	RetryableKeywords    *[]string `toml:"retryable_keywords"`
}

// applyProxy applies the keys set in f, if any.
func (c *Config) applyProxy(f *proxyFile) {
	if f == nil {
		return
	}
	p := &c.Proxy
	set(&p.Listen, f.Listen)
	set(&p.Upstream, f.Upstream)
	set(&p.Provider, f.Provider)
	if n := f.MaxRetries; n != nil {
		p.MaxRetries = int(*n)
	}
	if n := f.MaxConcurrentRetries; n != nil {
		p.MaxConcurrentRetries = int(*n)
	}
	set(&p.MaxBodyBytes, f.MaxBodyBytes)
	set(&p.WebSocket, f.WebSocket)
	if k := f.NonRetryableKeywords; k != nil {
		p.NonRetryableKeywords = slices.Clone(*k)
	}
	if k := f.RetryableKeywords; k != nil {
		p.RetryableKeywords = slices.Clone(*k)
	}
}

// proxy checks a [proxy] table at path.
func (c checker) proxy(path []string, f *proxyFile) {
	if f == nil {
		return
	}
	c.nonEmpty(at(path, "listen"), &f.Listen)
	if f.Upstream != nil && *f.Upstream != "" {
		c.httpURL(at(path, "upstream"), &f.Upstream)
	}
	c.nonNegative(at(path, "max_retries"), &f.MaxRetries)
	check(c, at(path, "max_concurrent_retries"), &f.MaxConcurrentRetries, func(n int64) bool { return n >= 1 && n <= 1<<20 },
		"must be between 1 and 1048576, got %d")
	check(c, at(path, "max_body_bytes"), &f.MaxBodyBytes, func(n int64) bool { return n > 0 },
		"must be a positive number of bytes, got %d")
	c.enum(at(path, "websocket"), &f.WebSocket, proxyWebSocketModes())
	noBlank := func(k []string) bool { return !slices.Contains(k, "") }
	check(c, at(path, "non_retryable_keywords"), &f.NonRetryableKeywords, noBlank, "must not contain empty strings, got %q")
	check(c, at(path, "retryable_keywords"), &f.RetryableKeywords, noBlank, "must not contain empty strings, got %q")
}
