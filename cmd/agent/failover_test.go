package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session/failover"
)

// atCapacity is a 503 "model at capacity" answer: the overloaded class.
func atCapacity() rt.Attempt {
	return rt.Error(503, "server_error", "", "Selected model is at capacity. Please try a different model.")
}

// TestFailoverToTheNextProvider: the configured provider answers 503 "at
// capacity" for good; the turn goes on at the fallback within the first's
// budget plus one request, over a history without the first provider's
// encrypted reasoning; the next run starts on the fallback while the first
// is in its cooldown, and says so.
func TestFailoverToTheNextProvider(t *testing.T) {
	t.Parallel()
	overloadRetries := provider.DefaultRetry()[provider.ClassOverloaded].MaxRetries
	first := rt.Script{rt.Stream(rt.Created("ra"),
		rt.OutputItemDone(map[string]any{"type": "reasoning", "id": "rs_a", "summary": []any{},
			"encrypted_content": "ENC-FROM-PRIMARY"}),
		rt.MessageDone("ma", "first answer"), rt.Completed("ra"))}
	for range 1 + overloadRetries {
		first = append(first, atCapacity())
	}
	primary := rt.NewServer(t, first)
	backup := rt.NewServer(t, rt.Script{rt.Reply("rb1", "mb1", "answer from the backup"), rt.Reply("rb2", "mb2", "backup again")})
	config := "model = \"m-primary\"\nmodel_provider = \"primary\"\n" +
		"fallback = [{ provider = \"backup\", model = \"m-backup\" }]\n" +
		"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
	home := t.TempDir()

	r := runCLI(t, nil, runOpts{config: config, home: home}, "exec", "one")
	if r.code != 0 || r.stdout != "first answer\n" {
		t.Fatalf("first turn: exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}

	r = runCLI(t, nil, runOpts{config: config, home: home}, "exec", "--json", "resume", "--last", "two")
	if r.code != 0 {
		t.Fatalf("resumed turn: exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// The overload retries that fit the 50 s bound ([retry] max_wait_ms):
	// 1.5 s, 7.5 s, then what is left of 45 s.
	const boundedRetries = 3
	if n, want := len(primary.Requests()), 1+1+boundedRetries; n != want {
		t.Errorf("primary got %d requests; want %d (one turn, then 1 + its %d overload retries inside the bound)", n, want, boundedRetries)
	}
	b := backup.Requests()
	if len(b) != 1 {
		t.Fatalf("backup got %d requests; want 1", len(b))
	}
	body := string(b[0].Body)
	for _, bad := range []string{"ENC-FROM-PRIMARY", "rs_a", "previous_response_id"} {
		if strings.Contains(body, bad) {
			t.Errorf("the request to the backup carries %q:\n%s", bad, body)
		}
	}
	if b[0].JSON["model"] != "m-backup" {
		t.Errorf("backup request model = %v; want m-backup", b[0].JSON["model"])
	}
	for _, keep := range []string{"first answer", "two"} {
		if !strings.Contains(body, keep) {
			t.Errorf("the request to the backup lost %q of the history:\n%s", keep, body)
		}
	}
	checkSwitchEvents(t, r.stdout)

	// The next run: the primary is in its cooldown, so it is not asked.
	before := len(primary.Requests())
	r = runCLI(t, nil, runOpts{config: config, home: home}, "exec", "three")
	if r.code != 0 || r.stdout != "backup again\n" {
		t.Fatalf("third run: exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(primary.Requests()) - before; n != 0 {
		t.Errorf("the primary got %d requests during its cooldown", n)
	}
	if !strings.Contains(r.stderr, "Switching to backup/m-backup (primary failed recently; skipped until") {
		t.Errorf("third run's stderr does not say why it starts on the backup:\n%s", r.stderr)
	}
}

// checkSwitchEvents checks exec --json's events of a turn that moved to
// the backup: each valid against the schema, one provider_switch from
// primary to backup/m-backup, the backup's answer, no failure.
func checkSwitchEvents(t *testing.T, stdout string) {
	t.Helper()
	var switched, answered bool
	schema := execSchema(t)
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s does not match docs/exec-json.schema.json: %v", line, err)
		}
		switch ev["type"] {
		case "provider_switch":
			switched = true
			from, _ := ev["from"].(map[string]any)
			to, _ := ev["to"].(map[string]any)
			if from["provider"] != "primary" || to["provider"] != "backup" || to["model"] != "m-backup" {
				t.Errorf("provider_switch = %s", line)
			}
		case "item.completed":
			if it, _ := ev["item"].(map[string]any); it["type"] == "agent_message" && it["text"] == "answer from the backup" {
				answered = true
			}
		case "turn.failed", "error":
			t.Errorf("%s", line)
		}
	}
	if !switched || !answered {
		t.Errorf("switched %v, answered %v; stdout:\n%s", switched, answered, stdout)
	}
}

// TestFailoverNeverForAuthOrBadRequests: a 401 or a 400 at the primary
// ends the turn there; the fallback is never asked.
func TestFailoverNeverForAuthOrBadRequests(t *testing.T) {
	t.Parallel()
	for _, a := range []rt.Attempt{
		rt.Error(400, "invalid_request_error", "", "bad request"),
		rt.Error(400, "invalid_request_error", "context_length_exceeded", "too long"),
		rt.Error(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"),
	} {
		primary := rt.NewServer(t, rt.Script{a})
		backup := rt.NewServer(t, nil)
		config := "model = \"m\"\nmodel_provider = \"primary\"\nfallback = [{ provider = \"backup\", model = \"m\" }]\n" +
			"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
			"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
		r := runCLI(t, nil, runOpts{config: config}, "exec", "hi")
		if r.code == 0 || len(backup.Requests()) != 0 {
			t.Errorf("exit %d, backup requests %d; want a failure and none; stderr:\n%s", r.code, len(backup.Requests()), r.stderr)
		}
	}
}

// TestFallbackWithoutCredentialsIsReportedAtStart: an entry whose key is
// missing is named before the first request, and skipped.
func TestFallbackWithoutCredentialsIsReportedAtStart(t *testing.T) {
	t.Parallel()
	primary := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	config := "model = \"m\"\nmodel_provider = \"primary\"\nfallback = [{ provider = \"backup\", model = \"m\" }]\n" +
		"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.backup]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"BACKUP_KEY_UNSET\"\n"
	r := runCLI(t, nil, runOpts{config: config}, "exec", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "fallback backup/m: no credentials") || !strings.Contains(r.stderr, "BACKUP_KEY_UNSET") {
		t.Errorf("stderr does not report the fallback without credentials:\n%s", r.stderr)
	}
}

// TestFailoverOnUsageLimitRemembersTheReset: a usage limit moves the turn
// to the fallback, and the provider is skipped until its limit resets,
// not for the default cooldown.
func TestFailoverOnUsageLimitRemembersTheReset(t *testing.T) {
	t.Parallel()
	const resetsAt = 4102444800 // 2100-01-01
	primary := rt.NewServer(t, rt.Script{rt.StatusBody(429,
		`{"error":{"type":"usage_limit_reached","message":"limit","resets_at":4102444800}}`)})
	backup := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "from the backup")})
	config := "model = \"m\"\nmodel_provider = \"primary\"\nfallback = [{ provider = \"backup\", model = \"m\" }]\n" +
		"[model_providers.primary]\nbase_url = \"" + primary.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.backup]\nbase_url = \"" + backup.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
	home := t.TempDir()
	r := runCLI(t, nil, runOpts{config: config, home: home}, "exec", "hi")
	if r.code != 0 || r.stdout != "from the backup\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := failover.NewHealth(home, nil).DownUntil("primary"); !got.Equal(time.Unix(resetsAt, 0)) {
		t.Errorf("primary skipped until %v; want its reset, %v", got, time.Unix(resetsAt, 0))
	}
}
