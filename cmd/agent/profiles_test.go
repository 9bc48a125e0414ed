package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session"
)

// TestProfiles: agent mcp-server's apps by profile: one app per profile,
// built at its first use (its notices on stderr then), shared by later
// calls; a session of a profile opened new or by the id of a recorded
// one, which it continues under that id.
func TestProfiles(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	home := t.TempDir()
	cfg := "fallback = [{ provider = \"demo\", model = \"x\" }]\n" + "model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n" + "[profiles.other]\nmodel = \"model-b\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	env := setup.Env{Stderr: stderr, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return ""
	}, Environ: func() []string { return nil }, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	p := newProfiles(t.Context(), app.Options{Env: env, Originator: "agent_cli", Cd: t.TempDir()})
	defer p.Close()
	def, err := p.Get("")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.Get(""); again != def {
		t.Error("a second Get built another app")
	}
	if n := strings.Count(stderr.String(), "agent: fallback demo/x: the demo provider cannot be a fallback; skipped\n"); n != 1 {
		t.Errorf("the app's notice was printed %d times; want once:\n%s", n, stderr.String())
	}
	other, err := p.Get("other")
	if err != nil || other == def || other.Config().Model != "model-b" || def.Config().Model != "model-a" {
		t.Fatalf("profile other: %v (model %q, default's %q)", err, other.Config().Model, def.Config().Model)
	}
	if _, err := p.Get("missing"); err == nil {
		t.Error("an unknown profile was built")
	}

	th, err := p.Open(t.Context(), "", "", app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Turn(t.Context(), "first", func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	id := th.ID
	th.Close()
	again, err := p.Open(t.Context(), "", id, app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.ID != id || again.Recorded == nil {
		t.Errorf("reopened session %s (recorded %v); want %s continued", again.ID, again.Recorded != nil, id)
	}
	if _, err := p.Open(t.Context(), "", "no-such-session", app.Spec{}); err == nil {
		t.Error("a session of an unknown id was opened")
	}
}
