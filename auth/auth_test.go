package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/provider"
)

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", "****"},
		{"test-abcdefghijklmnop1234", "test-…1234"},
		{"abcdefghijklmnopqrstuvwxyz", "…wxyz"},
	}
	for _, tt := range tests {
		if got := auth.Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	k := auth.NewAPIKey("test-secretsecretsecret9999")
	if s := k.String(); strings.Contains(s, "secret") {
		t.Errorf("String() = %q leaks the key", s)
	}
}

func TestFromEnv(t *testing.T) {
	p := provider.Custom("corp")
	p.EnvKey, p.EnvKeyInstructions = "CORP_KEY", "ask the platform team"
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	_, err := auth.FromEnv(p, getenv)
	var me *auth.MissingEnvKeyError
	if !errors.As(err, &me) || me.Var != "CORP_KEY" || !strings.Contains(err.Error(), "ask the platform team") {
		t.Errorf("missing key err = %v", err)
	}
	env["CORP_KEY"] = "  k1  "
	k, err := auth.FromEnv(p, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if tok, _ := k.Token(t.Context()); tok != "k1" {
		t.Errorf("token = %q; want trimmed k1", tok)
	}
	env["AGENT_API_KEY"] = "k2"
	k, _ = auth.FromEnv(p, getenv, "AGENT_API_KEY")
	if tok, _ := k.Token(t.Context()); tok != "k2" {
		t.Errorf("fallback var token = %q; want k2", tok)
	}
	none, err := auth.FromEnv(provider.Custom("local"), getenv)
	if none != nil || err != nil {
		t.Errorf("provider without env_key = %v, %v; want nil, nil", none, err)
	}
}
