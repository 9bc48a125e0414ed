package config_test

import (
	"strings"
	"testing"
)

func TestMaxConcurrentResends(t *testing.T) {
	def, err := loadText(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if def.MaxConcurrentResends != 0 {
		t.Errorf("default max_concurrent_resends = %d; want 0 (the default, 3, applies)", def.MaxConcurrentResends)
	}
	c, err := loadText(t, "[retry]\nmax_concurrent_resends = 7\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxConcurrentResends != 7 {
		t.Errorf("max_concurrent_resends = %d; want 7", c.MaxConcurrentResends)
	}
	c, err = loadText(t, "", "retry.max_concurrent_resends=2")
	if err != nil || c.MaxConcurrentResends != 2 {
		t.Errorf("-c retry.max_concurrent_resends=2: %d, %v", c.MaxConcurrentResends, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"[retry]\nmax_concurrent_resends = 0\n", "retry.max_concurrent_resends: must be between 1 and 100, got 0"},
		{"[model_providers.corp]\nbase_url = \"http://127.0.0.1:1/v1\"\n[model_providers.corp.retry]\nmax_concurrent_resends = 2\n",
			"model_providers.corp.retry.max_concurrent_resends"},
	} {
		_, err := loadText(t, bad.text)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v; want it to say %q", bad.text, err, bad.want)
		}
	}
}
