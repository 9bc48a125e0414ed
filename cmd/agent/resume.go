package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tui"
)

// pickFlags select a recorded session.
type pickFlags struct {
	last, all bool
}

func (p *pickFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&p.last, "last", false, "the most recent session (in this directory unless --all)")
	cmd.Flags().BoolVar(&p.all, "all", false, "with --last, look in every directory")
}

func newExecResumeCmd(ctx context.Context, env Env, g *globalFlags, f *execFlags) *cobra.Command {
	p := &pickFlags{}
	cmd := &cobra.Command{
		Use:   "resume [--last | ID] [PROMPT]",
		Short: "Continue a recorded session without the interactive UI",
		Long: `Continue a recorded session, appending to its rollout file. With a PROMPT
(or "-" for standard input) a new turn is run; without one, the session's
goal (active, or paused by a usage limit or the user) is pursued within
its budgets, else a turn that was interrupted, failed or paused is
continued with the continuation prompt.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			id := ""
			if !p.last {
				if len(args) == 0 {
					return usageError(errors.New("say which session: an ID or --last"))
				}
				id, args = args[0], args[1:]
			}
			if len(args) > 1 {
				return usageError(errors.New("too many arguments"))
			}
			images, err := tools.ImageDataURLs(f.images)
			if err != nil {
				return usageError(err)
			}
			a, err := newExecApp(ctx, env, g, f)
			if err != nil {
				return err
			}
			defer a.Close()
			ent, err := a.FindSession(ctx, id, p.last, p.all)
			if err != nil {
				return usageError(err)
			}
			// exec shows none of the past turns: their events are not kept.
			sess, err := a.Open(ctx, app.Spec{From: ent.Path, NoTranscript: true})
			if err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			defer sess.Close()
			ro := sess.Recorded
			for _, w := range ro.LoadWarnings() {
				fmt.Fprintln(env.Stderr, "agent: warning: "+w)
			}
			prompt := ""
			if len(args) == 1 || !env.StdinTTY && headless.StdinHasData(env.Stdin) {
				if prompt, err = headless.ReadPrompt(env.Stdin, env.StdinTTY, args); err != nil {
					return usageError(err)
				}
			} else if g := sess.Goal(); g != nil && resumableGoal(g.Status) {
				// As Codex's promptless exec resume: the goal's turns
				// continue the session, no made-up prompt recorded.
				if _, err := sess.SetGoalStatus(session.GoalActive); err != nil {
					return &exitcode.Error{Code: exitcode.Failed, Err: err}
				}
			} else {
				if ro.LastTurn == rollout.TurnCompleted || ro.LastTurn == rollout.TurnNone {
					return usageError(errors.New("the session's last turn completed and it has no goal to go on with; give a PROMPT to continue it"))
				}
				prompt = a.ContinuePrompt()
			}
			sess.AttachImages(images...)
			return runExecTurn(ctx, env, f, a, sess, prompt)
		},
	}
	p.add(cmd)
	return cmd
}

// resumableGoal reports whether a promptless exec resume continues a
// goal in state st: one that is active, or that a usage limit, a failed
// turn or the user paused (as Codex's /goal resume takes them).
func resumableGoal(st session.GoalStatus) bool {
	switch st {
	case session.GoalActive, session.GoalUsageLimited, session.GoalPaused:
		return true
	}
	return false
}

// newResumeCmd is `agent resume`: the chat, on a recorded session.
func newResumeCmd(ctx context.Context, env Env, g *globalFlags, cf *chatFlags) *cobra.Command {
	p := &pickFlags{}
	cmd := &cobra.Command{
		Use:   "resume [--last | ID | NAME] [PROMPT]",
		Short: "Open the chat on a recorded session, by id (or prefix) or /rename's name (none: a picker)",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			id := ""
			if p.last && len(args) == 2 {
				return usageError(errors.New("with --last, give only a PROMPT"))
			}
			if p.last && len(args) == 1 {
				cf.prompt = args[0]
			} else if len(args) >= 1 {
				id = args[0]
				if len(args) == 2 {
					cf.prompt = args[1]
				}
			}
			if id == "" && !p.last {
				// No id: the chat opens on a new session with the picker of
				// this directory's sessions.
				cf.pickResume = true
				return runChat(ctx, env, g, cf)
			}
			return runChatOn(ctx, env, g, cf, func(a *app.App) (*app.Thread, []tui.Message, error) {
				ent, err := a.FindSession(ctx, id, p.last, p.all)
				if err != nil {
					return nil, nil, usageError(err)
				}
				sess, err := a.Open(ctx, app.Spec{From: ent.Path})
				if err != nil {
					return nil, nil, err
				}
				return sess, tui.Transcript(sess.Recorded), nil
			})
		},
	}
	p.add(cmd)
	addChatFlags(cmd.Flags(), cf)
	return cmd
}

// newForkCmd is `agent fork ID`: a new session starting from a copy of
// another's history.
func newForkCmd(ctx context.Context, env Env, g *globalFlags, cf *chatFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fork ID [PROMPT]",
		Short: "Open the chat on a new session forked from a recorded one",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			if len(args) == 2 {
				cf.prompt = args[1]
			}
			return runChatOn(ctx, env, g, cf, func(a *app.App) (*app.Thread, []tui.Message, error) {
				ent, err := a.FindSession(ctx, args[0], false, false)
				if err != nil {
					return nil, nil, usageError(err)
				}
				sess, err := a.Open(ctx, app.Spec{From: ent.Path, Fork: true, ForkTurns: app.AllTurns})
				if err != nil {
					return nil, nil, err
				}
				return sess, tui.Transcript(sess.Recorded), nil
			})
		},
	}
	addChatFlags(cmd.Flags(), cf)
	return cmd
}

// newExecForkCmd is `agent exec fork ID [PROMPT]`: a new session starting
// from a copy of a recorded one's history, with one turn run on it, as the
// reference client's `codex exec fork`.
func newExecForkCmd(ctx context.Context, env Env, g *globalFlags, f *execFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "fork ID [PROMPT]",
		Short: "Fork a recorded session into a new one and run a turn on it",
		Long: `Copy a recorded session's history into a new session and run one turn on
it with PROMPT (or standard input; "-" reads it too). The recorded session
is left as it was.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			prompt, err := headless.ReadPrompt(env.Stdin, env.StdinTTY, args[1:])
			if err != nil {
				return usageError(err)
			}
			images, err := tools.ImageDataURLs(f.images)
			if err != nil {
				return usageError(err)
			}
			a, err := newExecApp(ctx, env, g, f)
			if err != nil {
				return err
			}
			defer a.Close()
			ent, err := a.FindSession(ctx, args[0], false, false)
			if err != nil {
				return usageError(err)
			}
			sess, err := a.Open(ctx, app.Spec{From: ent.Path, Fork: true, ForkTurns: app.AllTurns})
			if err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			defer sess.Close()
			sess.AttachImages(images...)
			return runExecTurn(ctx, env, f, a, sess, prompt)
		},
	}
}
