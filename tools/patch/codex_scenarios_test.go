package patch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodexScenarios applies each testdata/codex-scenarios/NAME/patch.txt
// to a copy of NAME/input, laid out as Codex's own apply-patch fixtures
// (codex-rs/apply-patch/tests/fixtures/scenarios), and compares the tree
// with NAME/expected: what the real Codex CLI 0.169.0 made of the same
// input (record.sh there). NAME/expected-agent, when present, is agent's
// deliberately different tree and NAME/why-different says why.
//
// With AGENT_CODEX_PATCH_SCENARIOS set to a checkout of Codex's fixture
// directory, those scenarios run too, against their own expected trees.
func TestCodexScenarios(t *testing.T) {
	dirs := []string{filepath.Join("testdata", "codex-scenarios")}
	if d := os.Getenv("AGENT_CODEX_PATCH_SCENARIOS"); d != "" {
		dirs = append(dirs, d)
	}
	n := 0
	for _, base := range dirs {
		entries, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			dir := filepath.Join(base, e.Name())
			if _, err := os.Stat(filepath.Join(dir, "patch.txt")); err != nil {
				continue
			}
			n++
			t.Run(e.Name(), func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				writeTree(t, root, readTreeIfAny(t, filepath.Join(dir, "input")))
				_, applyErr := run(t, root, readFile(t, filepath.Join(dir, "patch.txt")))
				want := filepath.Join(dir, "expected")
				if _, err := os.Stat(filepath.Join(dir, "expected-agent")); err == nil {
					want = filepath.Join(dir, "expected-agent")
					if why, err := os.ReadFile(filepath.Join(dir, "why-different")); err != nil || strings.TrimSpace(string(why)) == "" {
						t.Errorf("expected-agent without a why-different note")
					}
				}
				if d := cmp.Diff(readTreeIfAny(t, want), readTree(t, root)); d != "" {
					t.Errorf("tree after apply differs from %s (-want +got):\n%s", want, d)
				}
				if status, err := os.ReadFile(filepath.Join(dir, "codex-status")); err == nil {
					if codexOK := strings.TrimSpace(string(status)) == "ok"; codexOK != (applyErr == nil) {
						t.Errorf("apply error = %v; codex's status was %s", applyErr, strings.TrimSpace(string(status)))
					}
				}
			})
		}
	}
	if n < 20 {
		t.Fatalf("only %d scenarios found", n)
	}
}

// readTreeIfAny is readTree of dir, or an empty tree when dir is absent
// (git keeps no empty directories).
func readTreeIfAny(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return map[string]string{}
	}
	return readTree(t, dir)
}
