package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

const fallbackProviders = `
[model_providers.azure]
base_url = "http://127.0.0.1:1/v1"
[model_providers.gateway]
base_url = "http://127.0.0.1:2/v1"
`

func TestFallback(t *testing.T) {
	c, err := loadText(t, `fallback = [{ provider = "azure", model = "gpt-5.5" }, { provider = "gateway", model = "m2" }]
profile = "p"
[profiles.p]
model = "x"
[profiles.q]
fallback = [{ provider = "openai", model = "gpt-5.4-mini" }]
`+fallbackProviders)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Fallback{{Provider: "azure", Model: "gpt-5.5"}, {Provider: "gateway", Model: "m2"}}
	if diff := cmp.Diff(want, c.Fallback); diff != "" {
		t.Errorf("top-level fallback (profile without one) (-want +got):\n%s", diff)
	}
	c, err = loadText(t, `fallback = [{ provider = "azure", model = "gpt-5.5" }]
profile = "q"
[profiles.q]
fallback = [{ provider = "gateway", model = "m2" }]
`+fallbackProviders)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]config.Fallback{{Provider: "gateway", Model: "m2"}}, c.Fallback); diff != "" {
		t.Errorf("the profile's fallback wins (-want +got):\n%s", diff)
	}
	c, err = loadText(t, "profile = \"q\"\n[profiles.q]\nfallback = []\n"+fallbackProviders, `fallback=[{provider="azure", model="a"}]`)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]config.Fallback{{Provider: "azure", Model: "a"}}, c.Fallback); diff != "" {
		t.Errorf("-c wins over the profile (-want +got):\n%s", diff)
	}

	for _, bad := range []struct{ text, want string }{
		{`fallback = [{ provider = "nowhere", model = "m" }]`, `fallback.1.provider: unknown model provider "nowhere"`},
		{`fallback = [{ provider = "azure" }]`, `needs model = "<slug>"`},
		{`fallback = [{ model = "m" }]`, `needs provider = "<id>"`},
		{`fallback = [{ provider = "azure", model = "m", modle = "x" }]`, `fallback.1.modle: unknown key (did you mean "model"?)`},
		{`fallback = "azure"`, "fallback: expected"},
	} {
		_, err := loadText(t, bad.text+"\n"+fallbackProviders)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v; want it to say %q", bad.text, err, bad.want)
		}
	}
}
