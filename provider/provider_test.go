package provider_test

import (
	"testing"
	"time"

	"github.com/agentcli/agent/provider"
)

func TestBuiltinsHaveReferenceDefaults(t *testing.T) {
	for id, p := range provider.Builtins() {
		if p.ID != id || p.WireAPI != "responses" || p.RequestMaxRetries != 4 || p.StreamMaxRetries != 5 ||
			p.StreamIdleTimeout != 300*time.Second || p.WebSocketConnectTimeout != 15*time.Second ||
			p.Transport != provider.TransportAuto {
			t.Errorf("builtin %s = %+v", id, p)
		}
		for _, c := range provider.Classes() {
			if _, ok := p.Retry[c]; !ok {
				t.Errorf("builtin %s lacks retry class %s", id, c)
			}
		}
	}
	b := provider.Builtins()
	if !b["openai"].SupportsWebSockets || b["ollama"].SupportsWebSockets || !b["demo"].Demo {
		t.Errorf("capabilities wrong: %+v", b)
	}
}

func TestCloneIsDeep(t *testing.T) {
	p := provider.Builtins()["openai"]
	q := p.Clone()
	q.EnvHTTPHeaders["X"] = "y"
	q.Retry[provider.ClassIdle] = provider.ClassPolicy{}
	if _, ok := p.EnvHTTPHeaders["X"]; ok {
		t.Error("Clone shares EnvHTTPHeaders")
	}
	if p.Retry[provider.ClassIdle].BaseDelay == 0 {
		t.Error("Clone shares Retry")
	}
}
