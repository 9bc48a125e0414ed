package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/config"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session"
)

// appWith is an app on a home holding cfg, with the environment vars
// (AGENT_HOME added) and its stderr returned.
func appWith(t *testing.T, cfg string, vars map[string]string) (*App, *strings.Builder) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	a, err := New(t.Context(), Options{Env: testEnv(home, vars, stderr), Originator: "agent_cli", Cd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, stderr
}

func testEnv(home string, vars map[string]string, stderr *strings.Builder) setup.Env {
	return setup.Env{Stderr: stderr, Getenv: func(k string) string {
		if k == "AGENT_HOME" || (k == "HOME" && vars[k] == "") { // HOME: login shells read no rc files of the machine
			return home
		}
		return vars[k]
	}, Environ: func() []string { return nil }, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
}

func fakeProvider(url string) string {
	return "model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + url + "\"\n"
}

// TestNotifyAfterEachTurn: the notify program runs after every completed
// turn with its own arguments and, last, Codex's agent-turn-complete
// payload (the session's id, its directory, the turn's input and last
// answer); closing the session waits for it.
func TestNotifyAfterEachTurn(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	dir := t.TempDir()
	out := filepath.Join(dir, "payloads")
	script := filepath.Join(dir, "notify")
	body := "#!/bin/sh\n[ \"$1\" = --from-agent ] || exit 3\nfor a; do last=$a; done\nprintf '%s\\n' \"$last\" >> '" + out + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	a, stderr := appWith(t, "notify = [\""+script+"\", \"--from-agent\"]\n"+fakeProvider(srv.URL), nil)
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}

	for _, in := range []string{"first", "second"} {
		if err := th.Turn(t.Context(), in, func(session.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	th.Close() // waits for the programs
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the notify program did not run: %v (stderr %q)", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("notify ran %d times; want once per turn:\n%s", len(lines), b)
	}
	var got []turnComplete
	for _, l := range lines {
		var p turnComplete
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("payload %q: %v", l, err)
		}
		got = append(got, p)
	}
	slices.SortFunc(got, func(x, y turnComplete) int { return strings.Compare(x.InputMessages[0], y.InputMessages[0]) })
	for i, want := range []struct{ in, answer string }{{"first", "one"}, {"second", "two"}} {
		p := got[i]
		if p.Type != "agent-turn-complete" || p.ThreadID != th.ID || p.Cwd != th.Workspace().Cwd || p.TurnID == "" ||
			!slices.Equal(p.InputMessages, []string{want.in}) || p.LastAssistantMessage == nil || *p.LastAssistantMessage != want.answer {
			t.Errorf("payload %d = %+v; want the turn of %q answered %q in session %s", i, p, want.in, want.answer, th.ID)
		}
	}
	if got[0].TurnID == got[1].TurnID {
		t.Error("two turns share a turn-id")
	}
}

// TestNotifyProgramMissing: a notify program that cannot be started is
// said once, however many turns end, and the turns are not affected.
func TestNotifyProgramMissing(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	missing := filepath.Join(t.TempDir(), "no-such-notifier")
	a, stderr := appWith(t, "notify = [\""+missing+"\"]\n"+fakeProvider(srv.URL), nil)
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()

	for _, in := range []string{"first", "second"} {
		if err := th.Turn(t.Context(), in, func(session.Event) {}); err != nil {
			t.Fatalf("turn %q: %v", in, err)
		}
	}
	if n := strings.Count(stderr.String(), "agent: notify: "); n != 1 || !strings.Contains(stderr.String(), missing) {
		t.Errorf("stderr says the notifier failed %d times; want once, naming it:\n%s", n, stderr.String())
	}
}

// TestChatModels: /model's list is the provider's /models (OpenAI's data
// or Codex's models), asked with the session's credentials, then the
// known presets it lacks, on any provider (as Codex lists its presets).
func TestChatModels(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auths = append(auths, r.Header.Get("Authorization"))
		if fail || r.URL.Path != "/v1/models" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		w.Write([]byte(`{"data":[{"id":"gpt-a"},{"id":"gpt-b"}],"models":[{"slug":"codex-c"}]}`))
	}))
	defer srv.Close()
	cfg := "model_provider = \"openai\"\nopenai_base_url = \"" + srv.URL + "/v1\"\n"
	a, _ := appWith(t, cfg, map[string]string{"AGENT_API_KEY": "sk-test-models-0000"})
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()

	if got := a.Models(t.Context()); len(got) < 10 || !slices.Equal(got[:4], []string{"gpt-a", "gpt-b", "codex-c", "gpt-6.2-sol"}) || !slices.Contains(got, "gpt-5.5") {
		t.Errorf("Models = %q", got)
	}
	mu.Lock()
	if len(auths) != 1 || auths[0] != "Bearer sk-test-models-0000" {
		t.Errorf("/models was asked with %q; want the session's key", auths)
	}
	fail = true
	mu.Unlock()
	if got := a.Models(t.Context()); len(got) < 10 || got[0] != "gpt-6.2-sol" || slices.Contains(got, "claude-sonnet-4-5") {
		t.Errorf("Models of openai without /models = %q; want the catalogue's OpenAI models, Codex 0.171's first", got)
	}

	b, _ := appWith(t, fakeProvider(srv.URL)+"[models.\"local-7b\"]\nlimit = { context = 32000 }\n", nil)
	th2, err := b.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th2.Close()
	if got := b.Models(t.Context()); len(got) < 10 || got[0] != "local-7b" || got[1] != "gpt-6.2-sol" {
		t.Errorf("Models of a provider without /models = %q; want config's models, then the catalogue's", got)
	}
}

// TestChatModelsAnthropic: on wire_api = "anthropic", /model asks the
// provider's GET /models as the Messages API reads a key (x-api-key with
// anthropic-version, no bearer token) and lists its models, then the
// catalogue's Claude models (never OpenAI's); without /models, the
// catalogue's Claude models.
func TestChatModelsAnthropic(t *testing.T) {
	var mu sync.Mutex
	serve := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !serve || r.URL.Path != "/v1/models" || r.Header.Get("X-Api-Key") != "sk-ant-models-0000" ||
			r.Header.Get("Anthropic-Version") == "" || r.Header.Get("Authorization") != "" {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[{"type":"model","id":"claude-gateway-only","display_name":"Gateway"}],"has_more":false}`))
	}))
	defer srv.Close()
	cfg := "model = \"claude-sonnet-4-5\"\nmodel_provider = \"claude\"\n[model_providers.claude]\nbase_url = \"" + srv.URL +
		"/v1\"\nenv_key = \"CLAUDE_KEY\"\nwire_api = \"anthropic\"\n"
	a, _ := appWith(t, cfg, map[string]string{"CLAUDE_KEY": "sk-ant-models-0000"})
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	claudeOnly := func(names []string) bool {
		for _, n := range names {
			if !strings.HasPrefix(n, "claude-") {
				return false
			}
		}
		return len(names) > 1
	}
	if got := a.Models(t.Context()); len(got) == 0 || got[0] != "claude-gateway-only" || !claudeOnly(got) || !slices.Contains(got, "claude-haiku-4-5") {
		t.Errorf("Models = %q; want the provider's claude-gateway-only, then the catalogue's Claude models", got)
	}
	mu.Lock()
	serve = false
	mu.Unlock()
	if got := a.Models(t.Context()); !claudeOnly(got) || !slices.Contains(got, "claude-sonnet-4-5") || slices.Contains(got, "claude-gateway-only") {
		t.Errorf("Models without /models = %q; want the catalogue's Claude models", got)
	}
}

// TestFetchModelsRefusesGarbage: an answer that is not a models list, or
// is too large, is no list.
func TestFetchModelsRefusesGarbage(t *testing.T) {
	for _, body := range []string{"<html>", `{"data":"x"}`, `{"data":[` + strings.Repeat(`{"id":"m"},`, 120000) + `{"id":"m"}]}`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
		if got := fetchModels(t.Context(), srv.URL, "", srv.Client(), nil); got != nil {
			t.Errorf("fetchModels of %.20q... = %d names; want none", body, len(got))
		}
		srv.Close()
	}
	if got := fetchModels(t.Context(), "http://[::1", "", nil, nil); got != nil {
		t.Errorf("fetchModels of a bad URL = %q", got)
	}
}

// TestFallbackNotices: a fallback entry that cannot serve (the demo, or
// a provider without credentials) is said at start and left out of the
// chain; one with credentials is in it.
func TestFallbackNotices(t *testing.T) {
	cfg := "fallback = [{ provider = \"demo\", model = \"d\" }, { provider = \"keyed\", model = \"k\" }, { provider = \"other\", model = \"o\" }]\n" +
		fakeProvider("http://127.0.0.1:9/v1") +
		"[model_providers.keyed]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"KEYED_KEY\"\n" +
		"[model_providers.other]\nbase_url = \"http://127.0.0.1:9/v2\"\nenv_key = \"OTHER_KEY\"\n"
	a, _ := appWith(t, cfg, map[string]string{"OTHER_KEY": "sk-other-0000-0000"})
	var demo, keyed bool
	for _, n := range a.Notices() {
		demo = demo || n == "fallback demo/d: the demo provider cannot be a fallback; skipped"
		keyed = keyed || (strings.HasPrefix(n, "fallback keyed/k: no credentials (") && strings.Contains(n, "KEYED_KEY") && strings.HasSuffix(n, "); it will be skipped"))
	}
	if !demo || !keyed {
		t.Errorf("notices %q; want the demo and the keyless provider named", a.Notices())
	}
	if len(a.fallbacks) != 1 || a.fallbacks[0].Provider != "other" || a.fallbacks[0].Model != "o" || len(a.fallbackClients) != 1 {
		t.Errorf("fallback chain %+v; want other/o alone", a.fallbacks)
	}
}

// TestInstructionsFiles: model_instructions_file and
// experimental_compact_prompt_file replace the built-in texts, a relative
// name read in the agent home; a missing or empty file is an error naming
// the key.
func TestInstructionsFiles(t *testing.T) {
	home := t.TempDir()
	abs := filepath.Join(t.TempDir(), "compact.md")
	os.WriteFile(filepath.Join(home, "base.md"), []byte("You are terse."), 0o600)
	os.WriteFile(abs, []byte("Summarise."), 0o600)
	os.WriteFile(filepath.Join(home, "empty.md"), []byte(" \n"), 0o600)
	cfg := config.Default()
	cfg.Instructions, cfg.CompactPrompt = "inline", "inline compact"
	if base, compact, err := instructions(cfg, home); err != nil || base != "inline" || compact != "inline compact" {
		t.Errorf("inline: %q, %q, %v", base, compact, err)
	}
	cfg.ModelInstructionsFile, cfg.ExperimentalCompactPromptFile = "base.md", abs
	if base, compact, err := instructions(cfg, home); err != nil || base != "You are terse." || compact != "Summarise." {
		t.Errorf("files: %q, %q, %v", base, compact, err)
	}
	cfg.ModelInstructionsFile = "empty.md"
	if _, _, err := instructions(cfg, home); err == nil || err.Error() != "config: model_instructions_file: "+filepath.Join(home, "empty.md")+" is empty" {
		t.Errorf("empty file: %v", err)
	}
	cfg.ModelInstructionsFile, cfg.ExperimentalCompactPromptFile = "base.md", "missing.md"
	if _, _, err := instructions(cfg, home); err == nil || !strings.HasPrefix(err.Error(), "config: experimental_compact_prompt_file: open "+filepath.Join(home, "missing.md")) {
		t.Errorf("missing file: %v", err)
	}
}

// TestTelemetryAttributes: Codex's auth_mode and terminal.type.
func TestTelemetryAttributes(t *testing.T) {
	if got := terminalType(func(k string) string { return map[string]string{"TERM_PROGRAM": "iTerm.app", "TERM": "xterm"}[k] }); got != "iTerm.app" {
		t.Errorf("terminalType = %q", got)
	}
	if got := terminalType(func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] }); got != "xterm-256color" {
		t.Errorf("terminalType = %q", got)
	}
	if got := authMode(credentials{}); got != "" {
		t.Errorf("authMode without credentials = %q", got)
	}
}
