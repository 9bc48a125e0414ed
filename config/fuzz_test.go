package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/provider"
)

// FuzzLoad feeds arbitrary file bytes and one arbitrary -c argument to the
// loader: it must never panic, every problem must be a one-line *Error, and
// a successful load must be internally consistent.
func FuzzLoad(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "config.toml.example"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example, "model=o3")
	f.Add([]byte(""), "")
	f.Add([]byte("model = 5\n[model_providers.x]\nbse_url = 1\n"), "model_providers.x.retry.idle.jitter=2")
	f.Add([]byte("a.b.\"c,d\".e = 1\n[[x]]\n[[x]]\ny = 2\n"), `projects."/a=b".trust_level=trusted`)
	f.Add([]byte("retry = { overloaded = { delays_ms = [1, -1] } }\n"), "profile=p")
	f.Add([]byte("model = \"unterminated\n"), "=")

	const path = "/home/u/.agent/config.toml"
	f.Fuzz(func(t *testing.T, data []byte, override string) {
		opts := config.Options{}
		if override != "" {
			opts.Overrides = []string{override}
		}
		c, err := config.LoadData(path, data, opts)
		if err != nil {
			errs := []error{err}
			var joined interface{ Unwrap() []error }
			if errors.As(err, &joined) {
				errs = joined.Unwrap()
			}
			for _, e := range errs {
				var ce *config.Error
				if !errors.As(e, &ce) {
					if strings.HasPrefix(e.Error(), "config: ") {
						continue // the count of problems not shown
					}
					t.Fatalf("problem %v (%T) is not a *config.Error", e, e)
				}
				if ce.Override == "" && ce.Path != path || ce.Line < 0 {
					t.Errorf("problem %#v has a bad location", ce)
				}
				if strings.ContainsAny(ce.Error(), "\r\n") && ce.Override == "" {
					t.Errorf("problem %q spans lines", ce.Error())
				}
			}
			return
		}
		if c.Provider.ID != c.ModelProvider {
			t.Errorf("Provider.ID = %q, ModelProvider = %q", c.Provider.ID, c.ModelProvider)
		}
		for id, p := range c.Providers {
			for _, class := range provider.Classes() {
				pol, ok := p.Retry[class]
				if !ok || pol.MaxDelay < pol.BaseDelay || pol.BaseDelay <= 0 {
					t.Errorf("provider %s class %s: policy %+v", id, class, pol)
				}
			}
		}
	})
}
