package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

func TestAuthKeys(t *testing.T) {
	c := mustLoad(t, `
auth_issuer = "https://login.corp.example"
auth_token_url = "https://login.corp.example/token"
auth_client_id = "corp-client"
model_provider = "vault"

[model_providers.vault]
base_url = "https://llm.corp.example/v1"

[model_providers.vault.auth]
command = "vault-token"
args = ["--audience", "llm"]
refresh_interval_ms = 60000
cwd = "/srv"
`, config.Options{Overrides: []string{"model_providers.vault.auth.timeout_ms=2000"}})
	if c.AuthIssuer != "https://login.corp.example" || c.AuthTokenURL != "https://login.corp.example/token" || c.AuthClientID != "corp-client" {
		t.Errorf("issuer %q token url %q client %q", c.AuthIssuer, c.AuthTokenURL, c.AuthClientID)
	}
	want := map[string]config.AuthCommand{"vault": {
		Command: "vault-token", Args: []string{"--audience", "llm"},
		Timeout: 2 * time.Second, RefreshInterval: time.Minute, Cwd: "/srv",
	}}
	if diff := cmp.Diff(want, c.AuthCommands); diff != "" {
		t.Errorf("AuthCommands (-want +got):\n%s", diff)
	}
	d := mustLoad(t, "[model_providers.v]\nbase_url = \"http://x\"\nauth = { command = \"t\" }\n", config.Options{})
	if a := d.AuthCommands["v"]; a.Timeout != config.DefaultAuthTimeout || a.RefreshInterval != config.DefaultAuthRefreshInterval {
		t.Errorf("defaults = %+v", a)
	}
	if n := len(config.Default().AuthCommands); n != 0 {
		t.Errorf("Default has %d auth commands", n)
	}
}

func TestAuthConfigErrors(t *testing.T) {
	tests := []struct {
		name, file string
		overrides  []string
		want       []string
	}{
		{"with env_key", "[model_providers.v]\nbase_url = \"http://x\"\nenv_key = \"K\"\n\n[model_providers.v.auth]\ncommand = \"t\"\n",
			nil, []string{"config.toml:5", "model_providers.v.auth", "env_key"}},
		{"with requires_openai_auth", "[model_providers.v]\nbase_url = \"http://x\"\nrequires_openai_auth = true\nauth = { command = \"t\" }\n",
			nil, []string{"config.toml:4", "model_providers.v.auth", "requires_openai_auth"}},
		{"no command", "[model_providers.v]\nbase_url = \"http://x\"\n[model_providers.v.auth]\nargs = [\"a\"]\n",
			nil, []string{"config.toml:3", "command is required"}},
		{"built-in openai by -c", "", []string{"model_providers.openai.auth.command=t"}, []string{"-c model_providers.openai.auth.command=t", "env_key"}},
		{"bad timeout", "[model_providers.v]\nbase_url = \"http://x\"\n[model_providers.v.auth]\ncommand = \"t\"\ntimeout_ms = 0\n",
			nil, []string{"config.toml:5", "timeout_ms"}},
		{"bad issuer", "auth_issuer = \"auth.example\"\n", nil, []string{"config.toml:1", "auth_issuer"}},
		{"unknown auth key", "[model_providers.v]\nbase_url = \"http://x\"\n[model_providers.v.auth]\ncommand = \"t\"\ncomand = \"u\"\n",
			nil, []string{"config.toml:5", "comand"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(config.Options{Home: writeHome(t, tt.file), Overrides: tt.overrides})
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
