package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session/hooks"
)

// newHooksCmd is `agent hooks`: the lifecycle hooks of the home and the
// current project, with their source and trust, and trusting them.
func newHooksCmd(_ context.Context, env Env, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List lifecycle hooks (hooks.json, [hooks]) and trust them",
		Args:  cobra.NoArgs,
	}
	var cd string
	load := func() (string, *hooks.Set, error) {
		home, err := env.home()
		if err != nil {
			return "", nil, err
		}
		cfg, err := setup.LoadConfig(env.Stderr, home, g.flags())
		if err != nil {
			return "", nil, err
		}
		if cd == "" {
			if cd, err = os.Getwd(); err != nil {
				return "", nil, err
			}
		}
		set := hooks.Discover(setup.HookSources(cfg, home, cd, false))
		for _, w := range set.Warnings {
			fmt.Fprintln(env.Stderr, "warning: hooks: "+w)
		}
		return home, set, nil
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List every hook with its event, matcher, command, source and trust",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, set, err := load()
			if err != nil {
				return err
			}
			if len(set.All) == 0 {
				fmt.Fprintln(env.Stdout, "No hooks (hooks.json or [hooks] in the home, or a trusted project's .codex/).")
				return nil
			}
			for _, h := range set.All {
				printHook(env, h)
			}
			return nil
		},
	}
	var all bool
	trust := &cobra.Command{
		Use:   "trust [KEY...]",
		Short: "Trust hooks as they are now (their exact hash, kept in config.toml's [hooks.state], as Codex keeps it)",
		Long: "Trust hooks as they are now. Each KEY is a hook's key from `agent hooks list`; --all trusts every hook " +
			"that is new or changed. A trusted hook runs until its declaration changes.",
		RunE: func(cmd *cobra.Command, keys []string) error {
			home, set, err := load()
			if err != nil {
				return err
			}
			if len(keys) == 0 && !all {
				return usageError(fmt.Errorf("name the hooks to trust (their keys from `agent hooks list`) or use --all"))
			}
			n := 0
			for _, h := range set.All {
				if h.Trust == hooks.Trusted || !(all || containsString(keys, h.Key)) {
					continue
				}
				if err := config.TrustHook(home, h.Key, h.Hash); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "trusted %s at %s\n", h.Name(), h.Hash)
				n++
			}
			for _, k := range keys {
				if !containsKey(set, k) {
					return usageError(fmt.Errorf("no hook has the key %q (see `agent hooks list`)", k))
				}
			}
			if n == 0 {
				fmt.Fprintln(env.Stdout, "Nothing to trust: every hook named is trusted already.")
			}
			return nil
		},
	}
	trust.Flags().BoolVar(&all, "all", false, "trust every hook that is new or changed")
	cmd.PersistentFlags().StringVarP(&cd, "cd", "C", "", "the project directory (default: the current one)")
	cmd.AddCommand(list, trust)
	return cmd
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsKey(set *hooks.Set, key string) bool {
	for _, h := range set.All {
		if h.Key == key {
			return true
		}
	}
	return false
}

// printHook prints one hook of `agent hooks list`.
func printHook(env Env, h hooks.Hook) {
	m := ""
	if h.Matcher != nil {
		m = " matcher " + fmt.Sprintf("%q", *h.Matcher)
	}
	state := string(h.Trust)
	if !h.Enabled {
		state += ", disabled"
	}
	fmt.Fprintf(env.Stdout, "%s%s [%s, %s]\n  command: %s\n  source:  %s\n  key:     %s\n  hash:    %s\n",
		h.Event, m, h.Source, state, strings.TrimSpace(h.Command), h.Path, h.Key, h.Hash)
}
