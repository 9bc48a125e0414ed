package failover_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/transport"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestHealthCooldownIsSharedAndExpires(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "health")
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	a := failover.NewHealth(dir, c.now)
	b := failover.NewHealth(dir, c.now) // another process
	chain := []failover.Candidate{{"openai", "gpt-5.5"}, {"azure", "gpt-5.5"}, {"gateway", "gpt-5.5"}}

	if i, ok := b.Choose(chain, 0); !ok || i != 0 {
		t.Fatalf("Choose with nothing down = %d, %v; want 0", i, ok)
	}
	if err := a.MarkDown(t.Context(), "openai", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if i, _ := b.Choose(chain, 0); i != 1 {
		t.Errorf("Choose with openai down = %d; want 1 (azure)", i)
	}
	// A shorter delay later does not shorten the cooldown.
	if err := a.MarkDown(t.Context(), "openai", time.Second); err != nil {
		t.Fatal(err)
	}
	if got, want := b.DownUntil("openai"), c.t.Add(30*time.Second); !got.Equal(want) {
		t.Errorf("DownUntil = %v; want %v", got, want)
	}
	// Everything down: the one back first is probed.
	a.MarkDown(t.Context(), "azure", 10*time.Second)
	a.MarkDown(t.Context(), "gateway", 0) // no server delay: the default
	if i, _ := b.Choose(chain, 0); i != 1 {
		t.Errorf("Choose with all down = %d; want 1 (back first, in 10 s)", i)
	}
	c.t = c.t.Add(30 * time.Second)
	if i, _ := b.Choose(chain, 0); i != 0 {
		t.Errorf("Choose after openai's cooldown = %d; want 0", i)
	}
	if got := b.DownUntil("gateway"); !got.Equal(time.Unix(1_800_000_000, 0).Add(failover.DefaultCooldown)) {
		t.Errorf("gateway down until %v; want now+%v", got, failover.DefaultCooldown)
	}
	a.MarkUp("gateway")
	if b.Down("gateway") {
		t.Error("gateway still down after MarkUp")
	}
	if _, ok := b.Choose(chain, 3); ok {
		t.Error("Choose past the end of the chain succeeded")
	}
}

func TestHealthGarbageIsNotDown(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "retrygate", "openai"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "retrygate", "openai", "down"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if failover.NewHealth(dir, nil).Down("openai") {
		t.Error("a garbage record keeps the provider down")
	}
}

func item(t *testing.T, raw string) transport.Item {
	t.Helper()
	it, err := transport.ParseItem(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestPortable(t *testing.T) {
	history := []transport.Item{
		item(t, `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`),
		item(t, `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-foreign"}`),
		item(t, `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"let me look"}]}`),
		item(t, `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"exec_command","arguments":"{}"}`),
		transport.CallOutput("call_1", "ok", false),
	}
	got := failover.Portable(history)
	var b strings.Builder
	for _, it := range got {
		raw, _ := json.Marshal(it)
		b.Write(raw)
		b.WriteByte('\n')
	}
	text := b.String()
	for _, bad := range []string{"encrypted_content", "rs_1", "msg_1", "fc_1"} {
		if strings.Contains(text, bad) {
			t.Errorf("portable history still holds %q:\n%s", bad, text)
		}
	}
	for _, keep := range []string{`"text":"hi"`, `"text":"let me look"`, `"call_id":"call_1"`, `"output":"ok"`, `"name":"exec_command"`} {
		if !strings.Contains(text, keep) {
			t.Errorf("portable history lost %s:\n%s", keep, text)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d items; want 4 (the reasoning item dropped)", len(got))
	}
	if !strings.Contains(string(history[2].Raw), "msg_1") {
		t.Error("Portable modified the history it was given")
	}
}
