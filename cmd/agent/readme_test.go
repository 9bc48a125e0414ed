package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestREADMECommands: every command of .ci/readme-commands.sh is still in
// README.md, word for word, and the script (which runs them on the demo
// provider and checks their exit codes) passes.
func TestREADMECommands(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	bin := buildAgent(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../.ci/readme-commands.sh")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^(?:run|in_repo) [0-9,]+ '(.*)'$`)
	n := 0
	for _, ln := range strings.Split(string(script), "\n") {
		m := line.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		n++
		if !strings.Contains(string(readme), m[1]) {
			t.Errorf("README.md no longer says %q (update .ci/readme-commands.sh with it)", m[1])
		}
	}
	if n < 10 {
		t.Fatalf("the script has %d commands; it should carry the README's", n)
	}
	out, err := exec.Command("bash", "../../.ci/readme-commands.sh", bin).CombinedOutput()
	if err != nil {
		t.Errorf("README commands: %v\n%s", err, out)
	}
}
