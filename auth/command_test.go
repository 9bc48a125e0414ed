package auth_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
)

// tokenScript writes a shell script that appends a line to the file named
// by its first argument and prints "cmd-token-N" (N = runs so far),
// padded with blanks that must be trimmed.
func tokenScript(t *testing.T) (script, count string) {
	t.Helper()
	dir := t.TempDir()
	script = filepath.Join(dir, "token.sh")
	body := "#!/bin/sh\necho run >> \"$1\"\nn=$(wc -l < \"$1\" | tr -d ' ')\nprintf '  cmd-token-%s\\n\\n' \"$n\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script, filepath.Join(dir, "runs")
}

func runs(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestCommandCachesAndReruns(t *testing.T) {
	script, count := tokenScript(t)
	now := t0
	c := auth.NewCommand(auth.CommandOptions{
		Command: script, Args: []string{count}, RefreshInterval: time.Minute,
		Now: func() time.Time { return now },
	})
	bearer := func() string {
		h := http.Header{}
		if err := c.Apply(t.Context(), h); err != nil {
			t.Fatal(err)
		}
		return h.Get("Authorization")
	}
	if got := bearer(); got != "Bearer cmd-token-1" {
		t.Errorf("first token = %q", got)
	}
	now = now.Add(59 * time.Second)
	if got := bearer(); got != "Bearer cmd-token-1" || runs(t, count) != 1 {
		t.Errorf("within the interval: %q after %d runs; want the cached token", got, runs(t, count))
	}
	now = now.Add(time.Second)
	if got := bearer(); got != "Bearer cmd-token-2" {
		t.Errorf("after the interval: %q", got)
	}
	sent := http.Header{"Authorization": {"Bearer cmd-token-2"}}
	if retry, err := c.Refresh(t.Context(), sent); !retry || err != nil {
		t.Fatalf("Refresh = %v, %v", retry, err)
	}
	if got := bearer(); got != "Bearer cmd-token-3" {
		t.Errorf("after a 401: %q", got)
	}
	// A second request that failed with the old token does not rerun it.
	if retry, err := c.Refresh(t.Context(), sent); !retry || err != nil || runs(t, count) != 3 {
		t.Errorf("Refresh with a stale token = %v, %v after %d runs; want a retry and no run", retry, err, runs(t, count))
	}
}

func TestCommandFailures(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, script string
		timeout      time.Duration
		want         string
	}{
		{"exit status", "echo 'vault: not logged in' >&2\nexit 3", 0, "vault: not logged in"},
		{"no output", "exit 0", 0, "printed no token"},
		{"timeout", "exec sleep 10", 50 * time.Millisecond, "no token within 50ms"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "s"+string(rune('a'+i)))
			if err := os.WriteFile(p, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			c := auth.NewCommand(auth.CommandOptions{Command: p, Timeout: tt.timeout})
			err := c.Apply(t.Context(), http.Header{})
			var ce *auth.CommandError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply = %v; want a *CommandError mentioning %q", err, tt.want)
			}
		})
	}
}
