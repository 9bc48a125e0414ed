package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/setup"
)

// newSkillsCmd is `agent skills list`: the skills a session in the
// current directory would offer the model, and the files skipped.
func newSkillsCmd(env Env, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "List skills (SKILL.md in .agents/skills, the home's skills/, ~/.agents/skills)", Args: cobra.NoArgs}
	var cd string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the skills a session here offers, with where each is, and the SKILL.md files skipped and why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := env.home()
			if err != nil {
				return err
			}
			cfg, err := setup.LoadConfig(env.Stderr, home, g.flags())
			if err != nil {
				return err
			}
			if cd == "" {
				if cd, err = os.Getwd(); err != nil {
					return err
				}
			}
			found, problems := app.DiscoverSkills(cfg, home, env.Getenv("HOME"), cd)
			for _, p := range problems {
				fmt.Fprintln(env.Stderr, "warning: skills: "+p.String())
			}
			if len(found) == 0 {
				fmt.Fprintln(env.Stdout, "No skills (a SKILL.md under .agents/skills, "+home+"/skills or ~/.agents/skills).")
				return nil
			}
			for _, s := range found {
				fmt.Fprintf(env.Stdout, "$%s\n  %s\n  %s\n", s.Name, s.Description, s.Path)
			}
			return nil
		},
	}
	list.Flags().StringVarP(&cd, "cd", "C", "", "the project directory (default: the current one)")
	cmd.AddCommand(list)
	return cmd
}
