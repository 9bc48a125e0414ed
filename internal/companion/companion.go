// Package companion finds agent's companion programs: the helpers that
// link what agent itself does not, so that no agent process pays their
// start-up (agent-otel, the telemetry exporter; agent-man, the man page
// writer; agent-highlight, the chat's code colours). make install puts
// them beside agent; agent doctor says where each was found.
package companion

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The companion programs' names.
const (
	// Highlight lexes the chat's code blocks (tui/highlight).
	Highlight = "agent-highlight"
	// Man writes agent man's pages (internal/mantree).
	Man = "agent-man"
	// Otel exports [otel] telemetry (internal/telemetry).
	Otel = "agent-otel"
)

// Find returns the program name in the directory of self (agent's own
// executable), else on PATH, or an error saying where it looked.
func Find(self, name string) (string, error) {
	if self != "" {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s was not found beside %s or on PATH (make install puts it beside agent)", name, self)
	}
	return p, nil
}
