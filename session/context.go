package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentcli/agent/transport"
)

// Environment describes where the agent runs, for the model.
type Environment struct {
	Cwd            string
	Shell          string
	ApprovalPolicy string
	SandboxMode    string
	NetworkAccess  bool
	WritableRoots  []string
	Now            time.Time
}

// EnvironmentContext renders env as the <environment_context> user message
// recorded at the start of a session.
func EnvironmentContext(env Environment) transport.Item {
	var b strings.Builder
	b.WriteString("<environment_context>\n")
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "  <%s>%s</%s>\n", name, value, name)
		}
	}
	field("cwd", env.Cwd)
	field("approval_policy", env.ApprovalPolicy)
	field("sandbox_mode", env.SandboxMode)
	network := "restricted"
	if env.NetworkAccess || env.SandboxMode == "danger-full-access" {
		network = "enabled"
	}
	field("network_access", network)
	if len(env.WritableRoots) > 0 {
		b.WriteString("  <writable_roots>\n")
		for _, r := range env.WritableRoots {
			fmt.Fprintf(&b, "    <root>%s</root>\n", r)
		}
		b.WriteString("  </writable_roots>\n")
	}
	field("shell", filepath.Base(env.Shell))
	if !env.Now.IsZero() {
		field("current_date", env.Now.Format(time.DateOnly))
		name, _ := env.Now.Zone()
		field("timezone", name)
	}
	b.WriteString("</environment_context>")
	return transport.UserMessage(b.String())
}
