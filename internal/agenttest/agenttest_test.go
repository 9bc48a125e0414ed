package agenttest

import (
	"os"
	"testing"
)

// TestGoCommandOutlivesTheWorkingDirectory: the go command that builds
// the binaries runs in the test package's directory, whatever the
// working directory is at that moment: here one a test moved into and
// removed, as TestManCommandNameIsNoDirectory's t.Chdir did while the
// background build started ("getwd: no such file or directory").
func TestGoCommandOutlivesTheWorkingDirectory(t *testing.T) {
	gone := t.TempDir()
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if out, err := goCommand("list", "github.com/agentcli/agent/internal/agenttest").CombinedOutput(); err != nil {
		t.Fatalf("go list from a removed working directory: %v\n%s", err, out)
	}
}
