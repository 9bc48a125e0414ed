package session_test

import (
	"testing"
	"time"

	"github.com/agentcli/agent/session"
)

func TestEnvironmentContext(t *testing.T) {
	it := session.EnvironmentContext(session.Environment{
		Cwd: "/w", Shell: "/bin/bash", ApprovalPolicy: "never", SandboxMode: "workspace-write",
		WritableRoots: []string{"/w", "/tmp"}, Now: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
	})
	want := "<environment_context>\n  <cwd>/w</cwd>\n  <approval_policy>never</approval_policy>\n" +
		"  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n" +
		"  <writable_roots>\n    <root>/w</root>\n    <root>/tmp</root>\n  </writable_roots>\n" +
		"  <shell>bash</shell>\n  <current_date>2026-11-29</current_date>\n  <timezone>UTC</timezone>\n</environment_context>"
	if got := it.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if it.Role != "user" {
		t.Errorf("role = %q", it.Role)
	}
}
