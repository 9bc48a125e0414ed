package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// TestHardLinkIntoHiddenHomeRefused: a hard link planted in the workspace
// to a file of the agent's home (config.toml) is the same file under a
// writable path: Landlock and the mounts govern paths, so the command
// could read and change it although the home is hidden. The sandbox
// refuses to run while such a link exists, naming the file.
func TestHardLinkIntoHiddenHomeRefused(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	base := t.TempDir()
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	for _, d := range []string{home, filepath.Join(home, "sessions"), ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(home, "config.toml")
	const content = "model = \"m\"\n[model_providers.x]\nexperimental_bearer_token = \"sk-secret-0000\"\n"
	if err := os.WriteFile(cfg, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	p := strict(ws)
	p.ReadOnlyPaths, p.HiddenPaths = []string{home}, []string{home}

	// Without a link the command runs and cannot see the home.
	out, err := sh(t, p, "cat "+cfg+" || echo hidden")
	mustSucceed(t, out, err)
	if strings.Contains(out, "sk-secret") {
		t.Fatalf("the hidden config was read: %q", out)
	}

	for _, target := range []string{cfg, filepath.Join(home, "sessions", "rollout.jsonl")} {
		if target != cfg {
			if err := os.WriteFile(target, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		planted := filepath.Join(ws, "planted-"+filepath.Base(target))
		if err := os.Link(target, planted); err != nil {
			t.Skipf("cannot make a hard link here: %v", err)
		}
		cmd, err := sandbox.Command(t.Context(), p, "sh", "-c", "cat "+planted+"; echo pwned >> "+planted)
		if err == nil {
			out, _ := cmd.CombinedOutput()
			t.Errorf("a command ran with %s linked into the workspace; output %q", target, out)
		} else if !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "hard link") {
			t.Errorf("error %q does not name %s and its hard link", err, target)
		}
		if err := os.Remove(planted); err != nil {
			t.Fatal(err)
		}
	}
	mustContain(t, cfg, content)
	// With the links gone it runs again.
	out, err = sh(t, p, "echo ok")
	mustSucceed(t, out, err)
}
