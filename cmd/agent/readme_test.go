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
	t.Parallel() // its own scratch directory and HOME: it mostly waits for make and agent
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

// TestREADMELinks: every relative link of README.md names a file of the
// repository, and the Development section links nowhere outside it.
func TestREADMELinks(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	link := regexp.MustCompile(`\]\(([^)]+)\)`)
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if strings.Contains(target, "://") || target == "" {
			continue
		}
		if _, err := os.Stat("../../" + target); err != nil {
			t.Errorf("README.md links to %s: %v", m[1], err)
		}
	}
	_, dev, ok := strings.Cut(text, "\n## Development\n")
	if !ok {
		t.Fatal("README.md has no Development section")
	}
	dev, _, _ = strings.Cut(dev, "\n## ")
	for _, m := range link.FindAllStringSubmatch(dev, -1) {
		if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "../") {
			t.Errorf("the Development section links outside the repository: %s", m[1])
		}
	}
	if strings.Contains(dev, "../") {
		t.Errorf("the Development section names a path outside the repository:\n%s", dev)
	}
}
