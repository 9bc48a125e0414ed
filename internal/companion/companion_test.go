package companion_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/companion"
)

// TestFind prefers the program beside agent, then PATH, and otherwise
// says where it looked.
func TestFind(t *testing.T) {
	self, other := t.TempDir(), t.TempDir()
	t.Setenv("PATH", other)
	agent := filepath.Join(self, "agent")
	if _, err := companion.Find(agent, "agent-man"); err == nil || !strings.Contains(err.Error(), "agent-man was not found beside "+agent+" or on PATH") {
		t.Fatalf("none: %v", err)
	}
	onPath := filepath.Join(other, "agent-man")
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := companion.Find(agent, "agent-man"); err != nil || got != onPath {
		t.Fatalf("on PATH: %q, %v", got, err)
	}
	beside := filepath.Join(self, "agent-man")
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := companion.Find(agent, "agent-man"); err != nil || got != beside {
		t.Fatalf("beside: %q, %v", got, err)
	}
	if err := os.Mkdir(filepath.Join(self, "agent-otel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := companion.Find(agent, "agent-otel"); err == nil {
		t.Fatal("a directory named like the program was taken for it")
	}
}
