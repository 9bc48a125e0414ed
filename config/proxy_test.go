package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

func TestProxyKeys(t *testing.T) {
	c := mustLoad(t, `
[proxy]
listen = "127.0.0.1:9000"
provider = "corp"
max_retries = 0
max_concurrent_retries = 1
max_body_bytes = 1024
websocket = "passthrough"
retryable_keywords = ["busy"]
non_retryable_keywords = []
`, config.Options{Overrides: []string{"proxy.upstream=http://localhost:1234/v1"}})
	want := config.Proxy{
		Listen:               "127.0.0.1:9000",
		Upstream:             "http://localhost:1234/v1",
		Provider:             "corp",
		MaxRetries:           0,
		MaxConcurrentRetries: 1,
		MaxBodyBytes:         1024,
		WebSocket:            "passthrough",
		RetryableKeywords:    []string{"busy"},
		NonRetryableKeywords: []string{},
	}
	if diff := cmp.Diff(want, c.Proxy); diff != "" {
		t.Errorf("Proxy (-want +got):\n%s", diff)
	}
	if d := config.Default().Proxy; d.Listen != config.DefaultProxyListen || d.MaxRetries != 5 ||
		d.MaxConcurrentRetries != 3 || d.MaxBodyBytes != 32<<20 || d.WebSocket != "reject" ||
		d.RetryableKeywords != nil || d.NonRetryableKeywords != nil {
		t.Errorf("Default().Proxy = %+v", d)
	}
}

func TestProxyErrors(t *testing.T) {
	tests := []struct{ content, key, msg string }{
		{"[proxy]\nlisten = \"\"\n", "proxy.listen", "must not be empty"},
		{"[proxy]\nupstream = \"ftp://x\"\n", "proxy.upstream", "invalid URL"},
		{"[proxy]\nmax_retries = -1\n", "proxy.max_retries", "must not be negative"},
		{"[proxy]\nmax_concurrent_retries = 0\n", "proxy.max_concurrent_retries", "must be between 1"},
		{"[proxy]\nmax_body_bytes = 0\n", "proxy.max_body_bytes", "positive"},
		{"[proxy]\nwebsocket = \"sometimes\"\n", "proxy.websocket", "expected one of: reject, passthrough"},
		{"[proxy]\nretryable_keywords = [\"a\", \"\"]\n", "proxy.retryable_keywords", "empty strings"},
		{"[proxy]\nlisten_on = \"x\"\n", "proxy.listen_on", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ce, _, _ := firstError(t, tt.content, config.Options{})
			if ce.Key != tt.key || ce.Line != 2 || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("error = %s:%d %s: %s; want key %s line 2, message containing %q", ce.Path, ce.Line, ce.Key, ce.Msg, tt.key, tt.msg)
			}
		})
	}
}
