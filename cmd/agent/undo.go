package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session/checkpoint"
)

func newUndoCmd(ctx context.Context, env Env) *cobra.Command {
	p := &pickFlags{}
	var turn int
	var cd string
	cmd := &cobra.Command{
		Use:   "undo [--last | SESSION] [--turn N]",
		Short: "Restore the files a turn of a recorded session changed, without the chat",
		Long: `Restore the files a turn changed (the latest turn with files not undone yet,
or --turn N) as they were before it, from the checkpoint agent took when the
turn first wrote (docs/checkpoints.md). A file changed since by anyone is
never overwritten: the undo is refused naming it, and nothing is written.
The undo is recorded in the session, so the next undo takes the turn before.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if p.last == (len(args) == 1) {
				return usageError(errors.New("say which session: an ID or --last"))
			}
			home, err := env.home()
			if err != nil {
				return err
			}
			if cd == "" {
				if cd, err = os.Getwd(); err != nil {
					return err
				}
			}
			var ent rollout.Entry
			if p.last {
				ent, err = rollout.Latest(ctx, home, cd, p.all)
			} else {
				ent, err = rollout.Find(ctx, home, args[0])
			}
			var amb *rollout.AmbiguousError
			switch {
			case errors.Is(err, rollout.ErrNotFound) && p.last:
				return usageError(errors.New("no recorded session in this directory (try --all)"))
			case errors.Is(err, rollout.ErrNotFound):
				return usageError(fmt.Errorf("no session %q", args[0]))
			case errors.As(err, &amb):
				return usageError(fmt.Errorf("%q names more than one session: give more of the id", args[0]))
			case err != nil:
				return err
			}
			u, err := checkpoint.ForHome(home).UndoRecorded(ctx, ent.Path, turn)
			if err != nil {
				// A refusal (a file changed since), nothing left to undo,
				// a pruned checkpoint: nothing was written.
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			fmt.Fprintln(env.Stdout, u.String())
			return nil
		},
	}
	p.add(cmd)
	cmd.Flags().IntVar(&turn, "turn", 0, "the turn to undo, counted from 1 (default: the latest with files not undone)")
	cmd.Flags().StringVarP(&cd, "cd", "C", "", "the directory whose sessions --last looks at")
	return cmd
}
