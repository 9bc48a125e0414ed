package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/tools"
)

func newExecCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	env.Stderr = &syncbuf.Writer{W: env.Stderr} // MCP notices arrive from other goroutines
	f := &execFlags{}
	cmd := &cobra.Command{
		Use:   "exec [PROMPT]",
		Short: "Run one non-interactive turn and print the answer",
		Long: `Run one turn without the interactive UI. The prompt is the argument, or
standard input when the argument is "-" or absent; a prompt plus piped
standard input sends the input as a <stdin> block after the prompt.

Standard output holds the final message only, as in the reference client;
standard error shows a header (model, provider, sandbox, session id), each
command with its exit code, each patch, each MCP call, the turn's messages,
retries and other notices. Exit codes: 0 completed, 1 turn failed,
2 usage or config error, 3 authentication, 4 quota or usage limit,
5 transient failures outlasted every retry budget, 6 the turn completed but
the session could not be saved, 130 interrupted.

With --batch FILE it runs one prompt per JSON line of FILE, --jobs at a
time, sharing one retry gate, and prints one JSON result line per prompt
(docs/exec-batch.md).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runExec(ctx, env, g, f, args)
		},
	}
	fl := cmd.PersistentFlags()
	fl.BoolVar(&f.ephemeral, "ephemeral", false, "do not record the session on disk")
	fl.BoolVar(&f.json, "json", false, "print JSONL events on stdout (schema: docs/exec-json.md)")
	fl.BoolVar(&f.json, "experimental-json", false, "alias of --json")
	_ = fl.MarkHidden("experimental-json")
	fl.BoolVar(&g.ignoreUserConfig, "ignore-user-config", false, "do not read the home's config.toml (credentials are still found there)")
	fl.Bool("skip-git-repo-check", false, "allow running outside a git repository (agent always does)")
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy; exec never asks (never is the only one it runs under)")
	f.codex.add(fl)
	addIgnoredFlags(fl, ignoredCommonFlags)
	addIgnoredFlags(fl, ignoredExecFlags)
	fl.StringVarP(&f.lastMessage, "output-last-message", "o", "", "write the final assistant message to FILE (only when the turn completed)")
	fl.StringVar(&f.outputSchema, "output-schema", "", "JSON Schema FILE the final answer must follow (strict structured output)")
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox for commands: read-only (default), workspace-write or danger-full-access")
	fl.StringVarP(&f.cd, "cd", "C", "", "work in DIR instead of the current directory")
	cmd.Flags().StringVar(&f.remote, "remote", "", "run the turn on the app-server at ws://HOST:PORT (agent app-server, codex app-server)")
	cmd.Flags().StringVar(&f.remoteTokenEnv, "remote-auth-token-env", "", "send the bearer token in this environment variable to the --remote app-server")
	fl.StringArrayVarP(&f.images, "image", "i", nil, "attach an image FILE to the prompt (repeatable, or comma-separated)")
	fl.BoolVar(&f.noAutoContinue, "no-auto-continue", false, "fail fast: do not continue a turn that outlasted every retry budget")
	fl.DurationVar(&f.waitForReset, "wait-for-reset", 0,
		"when the server pauses the turn until a time (a usage limit's reset, a delay past the retry cap), wait for it, up to MAX, and continue (--wait-for-reset alone: up to 24h)")
	fl.Lookup("wait-for-reset").NoOptDefVal = headless.DefaultWaitForReset.String()
	fl.Float64Var(&f.maxCost, "max-cost", 0, "end the run before a request that would start with this much spent, in USD at the model catalogue's prices (exit code 8; a model without a known price is refused at start); overrides max_cost_usd")
	addBatchFlags(cmd.Flags(), &f.batch)
	cmd.AddCommand(newExecResumeCmd(ctx, env, g, f), newExecForkCmd(ctx, env, g, f))
	return cmd
}

// execFlags are agent exec's own flags.
type execFlags struct {
	json           bool
	lastMessage    string
	outputSchema   string
	sandbox        string
	cd             string
	noAutoContinue bool
	waitForReset   time.Duration // --wait-for-reset[=MAX]; 0: do not wait
	maxCost        float64       // --max-cost USD; 0: config's max_cost_usd
	ephemeral      bool
	images         []string
	approval       string     // -a: exec runs under "never" whatever is asked
	remote         string     // --remote ws://...: the turn runs on that app-server
	remoteTokenEnv string     // --remote-auth-token-env VAR
	codex          codexFlags // the reference client's flags (compat.go)
	batch          batchFlags // --batch and its companions (batch.go)
}

func runExec(ctx context.Context, env Env, g *globalFlags, f *execFlags, args []string) error {
	if f.batch.requested() {
		return runBatch(ctx, env, g, f, args)
	}
	if f.remote != "" {
		return runExecRemote(ctx, env, g, f, args)
	}
	prompt, err := headless.ReadPrompt(env.Stdin, env.StdinTTY, args)
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
	sess, err := a.Open(ctx, app.Spec{})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	defer sess.Close()
	sess.AttachImages(images...)
	return runExecTurn(ctx, env, f, a, sess, prompt)
}

// newExecApp builds the app for exec and its subcommands.
func newExecApp(ctx context.Context, env Env, g *globalFlags, f *execFlags) (*app.App, error) {
	schema, err := headless.ReadSchema(f.outputSchema)
	if err != nil {
		return nil, usageError(err)
	}
	opts, err := execAppOptions(env, g, f)
	if err != nil {
		return nil, err
	}
	opts.OutputSchema, opts.MCPNotice, opts.WaitMCP = schema, printMCPNotice(env), true
	a, err := app.New(ctx, opts)
	if err != nil {
		return nil, err
	}
	for _, n := range a.Notices() {
		fmt.Fprintln(env.Stderr, "agent: "+n)
	}
	return a, nil
}

// execAppOptions are the app options of exec's flags (and --batch's).
func execAppOptions(env Env, g *globalFlags, f *execFlags) (app.Options, error) {
	if err := f.codex.apply(g, &f.sandbox, nil); err != nil {
		return app.Options{}, usageError(err)
	}
	addDirs, err := f.codex.writableRoots()
	if err != nil {
		return app.Options{}, usageError(err)
	}
	if err := checkExecApproval(env, f.approval); err != nil {
		return app.Options{}, err
	}
	if f.maxCost < 0 || math.IsNaN(f.maxCost) || math.IsInf(f.maxCost, 0) {
		return app.Options{}, usageError(fmt.Errorf("--max-cost %v: want an amount in USD, at least 0", f.maxCost))
	}
	return g.appOptions(env, app.Options{
		MaxCostUSD: f.maxCost,
		Originator: "agent_exec", Cd: f.cd, Sandbox: f.sandbox, AddDirs: addDirs,
		// exec never asks: the approval policy is "never" and the sandbox
		// (read-only unless -s or config says otherwise) is the protection.
		Approval:       tools.PolicyNever,
		NoAutoContinue: f.noAutoContinue,
		Ephemeral:      f.ephemeral,
	}), nil
}

// checkExecApproval checks exec's -a: exec never asks, so a policy that
// would ask gets a warning, and a policy that is none an error.
func checkExecApproval(env Env, policy string) error {
	if policy == "" {
		return nil
	}
	p, err := tools.ParsePolicy(policy)
	if err != nil {
		return usageError(fmt.Errorf("-a: %w", err))
	}
	if p != tools.PolicyNever {
		fmt.Fprintf(env.Stderr, "agent: warning: -a %s is ignored: agent exec never asks for approval (commands that need more than the sandbox fail)\n", policy)
	}
	return nil
}

// runExecTurn runs one turn of sess and prints it as exec does; an active
// goal (the model's create_goal, or a resumed session's) is then pursued
// within its budgets, as Codex's exec continues one. An empty prompt runs
// the goal's turns only.
func runExecTurn(ctx context.Context, env Env, f *execFlags, a *app.App, sess *app.Thread, prompt string) error {
	stepGC := headless.StepGC(env.Getenv)
	return headless.RunTurn(ctx, sess.Session, prompt, headless.Options{
		Stdout: env.Stdout, Stderr: env.Stderr, StdoutTTY: env.StdoutTTY, StderrTTY: env.StderrTTY, Width: env.Width,
		JSON: f.json, SessionID: sess.ID, Header: headless.AppHeader(a, sess, version), Tools: headless.AppTools(sess),
		WaitForReset: f.waitForReset, Continue: a.ContinuePrompt,
		Goals: true, ResumeCommand: "agent exec resume " + sess.ID,
		LastMessage: f.lastMessage, Secrets: env.Secrets,
		Now: env.now, Sleep: env.sleep,
		OnStream: func() { headless.StreamGC(env.Getenv) },
		OnStep:   func() { stepGC() },
	})
}
