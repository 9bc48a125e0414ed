package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/review"
	"github.com/agentcli/agent/session"
)

// reviewFlags are agent review's own flags; the rest are exec's.
type reviewFlags struct {
	uncommitted  bool
	base, commit string
	exec         execFlags
}

func newReviewCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	f := &reviewFlags{exec: execFlags{codex: codexFlags{color: "auto"}}}
	cmd := &cobra.Command{
		Use:   "review [PROMPT]",
		Short: "Review the uncommitted changes, a branch or a commit, and print the findings",
		Long: `Review code without the chat, as /review does in it: the uncommitted
changes (staged, unstaged and untracked; the default), the current branch
against --base BRANCH, or one --commit SHA. PROMPT adds instructions of your
own ("-" reads them from standard input).

The review runs as one turn with agent's review instructions, in a
read-only sandbox unless -s says otherwise. Standard output gets the
findings, most important first, each with its file and line, then the
verdict; standard error shows the progress, as agent exec does, and --json
prints exec's JSONL events instead. Exit codes are exec's: 0 when the review
completed. Outside a git repository, or with an unknown branch or commit,
agent review exits 2, and with nothing to review 1, before any request.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runReview(ctx, env, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.uncommitted, "uncommitted", false, "review the staged, unstaged and untracked changes (the default)")
	fl.StringVar(&f.base, "base", "", "review the current branch against BRANCH (from their merge base)")
	fl.StringVar(&f.commit, "commit", "", "review the changes the commit SHA introduced")
	cmd.MarkFlagsMutuallyExclusive("uncommitted", "base", "commit")
	fl.BoolVar(&f.exec.json, "json", false, "print JSONL events on stdout (schema: docs/exec-json.md)")
	fl.StringVarP(&f.exec.lastMessage, "output-last-message", "o", "", "write the review's final message to FILE (only when it completed)")
	fl.StringVarP(&f.exec.cd, "cd", "C", "", "review the repository of DIR instead of the current directory's")
	fl.StringVarP(&f.exec.sandbox, "sandbox", "s", "", "sandbox for the commands the model runs (default read-only)")
	fl.BoolVar(&f.exec.ephemeral, "ephemeral", false, "do not record the session on disk")
	return cmd
}

// runReview gathers what git reports for the target, then runs the review
// turn as exec runs a turn, the findings rendered on stdout.
func runReview(ctx context.Context, env Env, g *globalFlags, f *reviewFlags, args []string) error {
	t := review.Target{Base: f.base, Commit: f.commit}
	if len(args) == 1 {
		t.Instructions = args[0]
		if args[0] == "-" {
			text, err := headless.ReadPrompt(env.Stdin, env.StdinTTY, args)
			if err != nil {
				return usageError(err)
			}
			t.Instructions = text
		}
	}
	dir := f.exec.cd
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return usageError(err)
		}
	}
	change, err := review.Gather(ctx, nil, dir, t)
	switch {
	case errors.Is(err, review.ErrNothing):
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	case ctx.Err() != nil:
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted")}
	case err != nil:
		return usageError(err)
	}
	if f.exec.sandbox == "" {
		f.exec.sandbox = "read-only" // a review reads; config's workspace-write is for work
	}
	f.exec.cd = change.Root
	a, err := newExecApp(ctx, env, g, &f.exec)
	if err != nil {
		return err
	}
	defer a.Close()
	sess, err := a.Open(ctx, app.Spec{})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	defer sess.Close()
	fmt.Fprintf(env.Stderr, "agent: reviewing the %s in %s\n", change.Summary, change.Root)
	rt := &reviewTurn{Session: sess.Session, target: change.Summary}
	return headless.RunTurn(ctx, rt, review.Prompt(change, t), headless.Options{
		Stdout: env.Stdout, Stderr: env.Stderr, StdoutTTY: env.StdoutTTY, StderrTTY: env.StderrTTY, Width: env.Width,
		JSON: f.exec.json, SessionID: sess.ID, Header: headless.AppHeader(a, sess, version), Tools: headless.AppTools(sess),
		LastMessage: f.exec.lastMessage, Secrets: env.Secrets, Now: env.now, Sleep: env.sleep,
		Answer: review.Render,
	})
}

// reviewTurn is a session whose first turn is the review.
type reviewTurn struct {
	*session.Session
	target string
	done   bool
}

func (r *reviewTurn) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	if r.done {
		return r.Session.Turn(ctx, input, emit)
	}
	r.done = true
	return r.Session.Review(ctx, r.target, input, emit)
}
