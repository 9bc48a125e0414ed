package config_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentcli/agent/config"
)

func ExampleLoad() {
	home, err := os.MkdirTemp("", "agent-home")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	const file = `
model = "gpt-5.5"
model_provider = "corp"

[model_providers.corp]
base_url = "https://llm.corp.example/v1"
env_key = "CORP_LLM_KEY"
stream_max_retries = 500 # clamped to 100

[profiles.fast]
model = "gpt-5.4-mini"
`
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(file), 0o600); err != nil {
		log.Fatal(err)
	}

	c, err := config.Load(config.Options{
		Home:      home,
		Profile:   "fast",
		Overrides: []string{"model_reasoning_effort=low"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Model, c.ModelReasoningEffort, c.Provider.ID, c.Provider.BaseURL, c.Provider.StreamMaxRetries)

	_, err = config.Load(config.Options{Home: home, Overrides: []string{"model_providers.corp.wire_api=grpc"}})
	fmt.Println(err)
	// Output:
	// gpt-5.4-mini low corp https://llm.corp.example/v1 100
	// -c model_providers.corp.wire_api=grpc: model_providers.corp.wire_api: unknown wire_api "grpc"; use "responses", "chat" or "anthropic"
}
