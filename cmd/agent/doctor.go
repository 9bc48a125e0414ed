package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/internal/doctor"
)

func newDoctorCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	var offline, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check why agent does or does not work here",
		Long: `Check, one line each, what agent needs on this machine: the config file
(and its errors), the provider and model chosen, where the credential comes
from (masked) and whether the provider accepts it (one GET /models; where
that is not served, an invalid POST /responses that must be refused with
400, not 401), HTTPS and WebSocket reachability through the configured
proxy and CA, the
sandbox this kernel can enforce in each mode, each MCP server's start-up,
AGENT_HOME's permissions, and where agent's companion programs are
(agent-highlight, agent-man, agent-otel: beside agent, else on PATH).
Every failed line says how to fix it.

--offline skips the network checks. Exits 0 only when every check holds
(warnings included), 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			self, _ := os.Executable()
			return doctor.Run(ctx, doctor.Options{
				Env: env.app(), Stdout: env.Stdout, StdoutTTY: env.StdoutTTY, Flags: g.flags(),
				Probes: env.SandboxProbes, Self: self, Version: version, Offline: offline, JSON: asJSON,
			})
		},
	}
	cmd.Flags().BoolVar(&offline, "offline", false, "skip the checks that use the network")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
