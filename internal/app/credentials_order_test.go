package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session"
)

// TestCredentialSourceNamesWhatWasUsed: where a credential cannot be sent
// (a control character in it), the error names the source the credential
// came from — decided where the credential is picked. With only
// CODEX_API_KEY set it is that variable, not auth.json; with an auth
// command, the command; with the provider's env_key, that variable. No
// request leaves.
func TestCredentialSourceNamesWhatWasUsed(t *testing.T) {
	for _, tt := range []struct {
		name, cfg string
		env       map[string]string
		want      string
	}{
		{"codex api key", "model_provider = \"openai\"\n", map[string]string{"CODEX_API_KEY": "sk-test-\x01codex"},
			"environment variable CODEX_API_KEY"},
		{"agent api key", "model_provider = \"openai\"\n", map[string]string{"AGENT_API_KEY": "sk-test-\x01agent", "CODEX_API_KEY": "sk-test-codex"},
			"environment variable AGENT_API_KEY"},
		{"env key", "model_provider = \"openai\"\n", map[string]string{"OPENAI_API_KEY": "sk-test-\x01openai"},
			"environment variable OPENAI_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{})
			home := t.TempDir()
			cfg := "model = \"m\"\nopenai_base_url = \"" + srv.URL + "\"\n" + tt.cfg +
				"[model_providers.openai]\nsupports_websockets = false\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{"AGENT_HOME": home}
			for k, v := range tt.env {
				vars[k] = v
			}
			env := setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string { return vars[k] },
				Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
			a, err := New(t.Context(), Options{Env: env, Originator: "agent_exec", Cd: t.TempDir(), Ephemeral: true})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s, err := a.Open(t.Context(), Spec{})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Turn(t.Context(), "hi", func(session.Event) {})
			if err == nil || !strings.Contains(err.Error(), "the credential from "+tt.want+" contains") {
				t.Errorf("turn error %v; want it to name %s", err, tt.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent with a credential that cannot be", n)
			}
		})
	}
}
