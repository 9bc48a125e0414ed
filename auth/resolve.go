package auth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/provider"
)

// ResolveOptions are what [Resolve] consults.
type ResolveOptions struct {
	// Provider is the selected provider.
	Provider provider.Info
	// Command is the provider's [model_providers.<id>.auth], or nil.
	Command *CommandOptions
	// Getenv reads the environment (required).
	Getenv func(string) string
	// APIKeyVar is an environment variable holding an API key that wins
	// over auth.json ("AGENT_API_KEY" for exec); "" for none.
	APIKeyVar string
	// Manager configures the auth.json credentials (Store is required).
	Manager ManagerOptions
}

// Resolved is the outcome of [Resolve]: at most one field is set, and
// none means the provider is used unauthenticated.
type Resolved struct {
	APIKey  *APIKey
	Command *Command
	Manager *Manager
	// Source names, for errors, where the credential comes from
	// ("environment variable OPENAI_API_KEY", "the output of auth command
	// CMD", "auth.json"); "" when there is none. Resolve decides it with
	// the credential, so the two cannot disagree.
	Source string
}

// Resolve picks the credentials of a provider, in the reference client's
// order:
//
//  1. the provider's env_key, which must then be set (else a
//     [*MissingEnvKeyError]) — except that the built-in openai provider's
//     OPENAI_API_KEY is only a convenience, skipped when unset;
//  2. the provider's auth command;
//  3. nothing, when the provider does not require OpenAI auth;
//  4. opts.APIKeyVar, then auth.json (an API key or ChatGPT tokens); with
//     neither, [ErrNotLoggedIn].
//
// A corrupt auth.json is a [*CorruptFileError].
func Resolve(opts ResolveOptions) (Resolved, error) {
	p := opts.Provider
	if p.EnvKey != "" {
		if k := strings.TrimSpace(opts.Getenv(p.EnvKey)); k != "" {
			return Resolved{APIKey: NewAPIKey(k), Source: "environment variable " + p.EnvKey}, nil
		}
		if p.ID != "openai" || !p.RequiresOpenAIAuth {
			return Resolved{}, &MissingEnvKeyError{Provider: p.ID, Var: p.EnvKey, Instructions: p.EnvKeyInstructions}
		}
	}
	if opts.Command != nil {
		return Resolved{Command: NewCommand(*opts.Command), Source: "the output of auth command " + opts.Command.Command}, nil
	}
	if !p.RequiresOpenAIAuth {
		return Resolved{}, nil
	}
	if v := opts.APIKeyVar; v != "" {
		if k := strings.TrimSpace(opts.Getenv(v)); k != "" {
			return Resolved{APIKey: NewAPIKey(k), Source: "environment variable " + v}, nil
		}
	}
	m, err := LoadManager(opts.Manager)
	if errors.Is(err, ErrNotLoggedIn) {
		hint := "run `agent login`"
		switch {
		case p.EnvKey != "":
			hint += ", or export " + p.EnvKey
		case opts.APIKeyVar != "":
			hint += ", or export " + opts.APIKeyVar
		}
		return Resolved{}, fmt.Errorf("provider %q: %w: %s", p.ID, err, hint)
	}
	if err != nil {
		return Resolved{}, fmt.Errorf("provider %q: %w", p.ID, err)
	}
	return Resolved{Manager: m, Source: "auth.json"}, nil
}
