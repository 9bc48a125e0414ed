package auth_test

import (
	"errors"
	"testing"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/provider"
)

func TestResolvePrecedence(t *testing.T) {
	openai := provider.Builtins()["openai"]
	custom := func(envKey string, requiresOpenAI bool) provider.Info {
		p := provider.Custom("corp")
		p.EnvKey, p.RequiresOpenAIAuth = envKey, requiresOpenAI
		return p
	}
	command := &auth.CommandOptions{Command: "print-token"}
	const fileKey = "sk-file-" + leak + "-9999"
	tests := []struct {
		name     string
		p        provider.Info
		command  *auth.CommandOptions
		env      map[string]string
		loggedIn bool
		want     string // "key:<value>", "command", "manager", "none"
		err      func(error) bool
	}{
		{name: "env_key set", p: custom("CORP_KEY", false), env: map[string]string{"CORP_KEY": "k1", "AGENT_API_KEY": "k2"}, want: "key:k1"},
		{name: "env_key unset is an error", p: custom("CORP_KEY", true), env: map[string]string{"AGENT_API_KEY": "k2"}, loggedIn: true,
			err: func(err error) bool { var me *auth.MissingEnvKeyError; return errors.As(err, &me) }},
		{name: "command", p: custom("", false), command: command, want: "command"},
		{name: "no auth needed", p: custom("", false), env: map[string]string{"AGENT_API_KEY": "k2"}, loggedIn: true, want: "none"},
		{name: "AGENT_API_KEY before auth.json", p: custom("", true), env: map[string]string{"AGENT_API_KEY": "k2"}, loggedIn: true, want: "key:k2"},
		{name: "auth.json", p: custom("", true), loggedIn: true, want: "manager"},
		{name: "not logged in", p: custom("", true), err: func(err error) bool { return errors.Is(err, auth.ErrNotLoggedIn) }},
		{name: "openai with OPENAI_API_KEY", p: openai, env: map[string]string{"OPENAI_API_KEY": "k3"}, loggedIn: true, want: "key:k3"},
		{name: "openai falls through to auth.json", p: openai, loggedIn: true, want: "manager"},
		{name: "openai falls through to AGENT_API_KEY", p: openai, env: map[string]string{"AGENT_API_KEY": "k2"}, want: "key:k2"},
		{name: "openai not logged in", p: openai, err: func(err error) bool { return errors.Is(err, auth.ErrNotLoggedIn) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := auth.NewStore(t.TempDir(), nil)
			if tt.loggedIn {
				k := fileKey
				if err := s.Save(&auth.File{AuthMode: auth.ModeAPIKey, OpenAIAPIKey: &k}); err != nil {
					t.Fatal(err)
				}
			}
			r, err := auth.Resolve(auth.ResolveOptions{
				Provider:  tt.p,
				Command:   tt.command,
				Getenv:    func(k string) string { return tt.env[k] },
				APIKeyVar: "AGENT_API_KEY",
				Manager:   auth.ManagerOptions{Store: s},
			})
			if tt.err != nil {
				if !tt.err(err) {
					t.Fatalf("Resolve error = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := "none"
			switch {
			case r.APIKey != nil:
				tok, _ := r.APIKey.Token(t.Context())
				got = "key:" + tok
			case r.Command != nil:
				got = "command"
			case r.Manager != nil:
				got = "manager"
			}
			if got != tt.want {
				t.Errorf("Resolve = %s; want %s", got, tt.want)
			}
		})
	}
}
