package config_test

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestEmptyBaseURLIsMissing: an empty base_url for a custom provider, from
// the file or from -c (model_providers.x.base_url=), even over a file's
// valid one, is the config error of a missing one: the key would
// otherwise go to the OpenAI endpoint.
func TestEmptyBaseURLIsMissing(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		overrides  []string
	}{
		{"-c empty", "", []string{"model_providers.x.env_key=X_KEY", "model_providers.x.base_url="}},
		{"-c quoted empty", "", []string{"model_providers.x.env_key=X_KEY", `model_providers.x.base_url=""`}},
		{"-c empty over the file's", "[model_providers.x]\nbase_url = \"https://x.example/v1\"\nenv_key = \"X_KEY\"\n", []string{"model_providers.x.base_url="}},
		{"file empty", "[model_providers.x]\nbase_url = \"\"\nenv_key = \"X_KEY\"\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(config.Options{Home: writeHome(t, tt.file), Overrides: append([]string{"model_provider=x"}, tt.overrides...)})
			if err == nil || !strings.Contains(err.Error(), "base_url is required for a custom provider") {
				t.Errorf("Load = %v; want base_url is required", err)
			}
		})
	}
}
