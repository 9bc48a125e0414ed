package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/tools/sandbox"
)

// version is the agent version reported in the User-Agent and --version.
const version = "0.1.0-dev"

// Env is everything the commands take from the process, so tests can run
// them in-process with fakes.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ lists the whole environment, as os.Environ; nil means
	// os.Environ. Commands the model runs get it filtered through
	// [shell_environment_policy].
	Environ func() []string
	// StdinTTY, StdoutTTY and StderrTTY say which streams are terminals.
	StdinTTY, StdoutTTY, StderrTTY bool
	// Width returns the terminal width of stderr (0 if unknown); may be nil.
	Width func() int
	// Keyring replaces the OS keyring of cli_auth_credentials_store
	// (tests); nil is the OS keyring.
	Keyring auth.Keyring
	// Sleep and Rand replace the real clock and jitter source (tests).
	Sleep retry.Sleeper
	Rand  func() float64
	// Now reads the wall clock the machine-wide retry gate measures
	// cooldowns on; it must agree with Sleep. A test that replaces Sleep
	// but not Now gets a retry gate of its own process only.
	Now func() time.Time
	// SandboxProbes replace agent doctor's checks of the kernel (tests
	// simulate other kernels); zero runs the real ones.
	SandboxProbes sandbox.Probes
	// Secrets are the credentials this process holds, masked in
	// everything it prints, logs and records; run creates the set and
	// wraps Stdout and Stderr with it.
	Secrets *redact.Set
}

// now reads the clock Env.Now gives, else the real one.
func (e Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// sleep waits d on Env.Sleep, else on a real timer, honouring ctx.
func (e Env) sleep(ctx context.Context, d time.Duration) error {
	if e.Sleep != nil {
		return e.Sleep(ctx, d)
	}
	return retry.Sleep(ctx, d)
}

// usageError is err with exit code 2.
func usageError(err error) error { return &exitcode.Error{Code: exitcode.Usage, Err: err} }

// globalFlags are the flags shared by every command.
type globalFlags struct {
	model     string
	profile   string
	overrides []string
	logLevel  string
	transport string
	// ignoreUserConfig is exec's --ignore-user-config: the home's
	// config.toml (and profile files) are not read; credentials still are.
	ignoreUserConfig bool
	// bypassHookTrust is --dangerously-bypass-hook-trust.
	bypassHookTrust bool
}

func run(ctx context.Context, args []string, env Env) int {
	if env.Secrets == nil {
		env.Secrets = redact.New()
	}
	stdout, stderr := env.Secrets.Writer(env.Stdout), env.Secrets.Writer(env.Stderr)
	defer stdout.Flush()
	defer stderr.Flush()
	env.Stdout, env.Stderr = stdout, stderr
	root := newRootCmd(ctx, env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitcode.OK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) && exitcode.Of(err) != exitcode.Interrupted {
		// Ctrl-C before or between turns (a wait for a lock): not a usage
		// error or a failure, whatever the step it ended.
		fmt.Fprintln(env.Stderr, "agent: interrupted")
		return exitcode.Interrupted
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		if ee.Code != exitcode.OK {
			fmt.Fprintf(env.Stderr, "agent: %s\n", stderrText(env, ee.Err.Error()))
		}
		return ee.Code
	}
	// Errors cobra produced itself (unknown flag, bad args).
	fmt.Fprintf(env.Stderr, "agent: %s\n", stderrText(env, err.Error()))
	return exitcode.Usage
}

// stderrText returns text from outside (an error a server sent) fit for
// stderr: sanitized when it is a terminal.
func stderrText(env Env, text string) string {
	if env.StderrTTY {
		return termtext.Sanitize(text)
	}
	return text
}

func newRootCmd(ctx context.Context, env Env) *cobra.Command {
	g := &globalFlags{}
	cf := &chatFlags{}
	root := &cobra.Command{
		Short:         "A coding agent for your terminal that survives flaky networks and overloaded models",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Use:           "agent [PROMPT]",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := checkCommandWord(cmd, args, cmd.ArgsLenAtDash()); err != nil {
				return err
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			if len(args) == 1 {
				cf.prompt = args[0]
			}
			return runChat(ctx, env, g, cf)
		},
	}
	addChatFlags(root.Flags(), cf)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	pf := root.PersistentFlags()
	pf.StringVarP(&g.model, "model", "m", "", "model to use (overrides config)")
	pf.StringVarP(&g.profile, "profile", "p", "", "config profile to apply: NAME.config.toml beside config.toml, or its [profiles.NAME] table")
	pf.StringArrayVarP(&g.overrides, "config", "c", nil, "override a config value: -c key=value (dotted key; value parsed as TOML, else a string); repeatable")
	pf.StringVar(&g.logLevel, "log-level", "", "log level for $AGENT_HOME/log/agent.log: debug, info, warn, error (default info, or $AGENT_LOG)")
	pf.StringVar(&g.transport, "transport", "", `transport to the model: "auto" (WebSocket where supported, else HTTPS), "websocket" or "https" (overrides the provider's transport key)`)
	pf.BoolVar(&g.bypassHookTrust, "dangerously-bypass-hook-trust", false, "run enabled hooks whose exact hash was not reviewed and trusted, for this invocation (as Codex's flag)")
	root.AddCommand(newExecCmd(ctx, env, g), newReviewCmd(ctx, env, g))
	root.AddCommand(newMCPCmd(env, g), newMCPServerCmd(ctx, env, g), newAppServerCmd(ctx, env, g), newACPCmd(ctx, env, g))
	root.AddCommand(newBatchCmd(env), newUndoCmd(ctx, env))
	root.AddCommand(newResumeCmd(ctx, env, g, cf), newForkCmd(ctx, env, g, cf))
	root.AddCommand(newProxyCmd(ctx, env, g))
	root.AddCommand(newSandboxCmd(ctx, env, g))
	root.AddCommand(newDoctorCmd(ctx, env, g), newManCmd(env), newHooksCmd(ctx, env, g), newSkillsCmd(env, g))
	root.AddCommand(newLoginCmd(ctx, env, g), newLogoutCmd(ctx, env, g))
	registerCompletions(root, env)
	return root
}

// app is what the engine takes of env.
func (env Env) app() setup.Env {
	return setup.Env{
		Getenv: env.Getenv, Environ: env.Environ, Stderr: env.Stderr, StderrTTY: env.StderrTTY, Keyring: env.Keyring,
		Sleep: env.Sleep, Rand: env.Rand, Now: env.Now, Secrets: env.Secrets,
	}
}

// appOptions are the app options of a front end under the global flags.
func (g *globalFlags) appOptions(env Env, o app.Options) app.Options {
	o.Env, o.Flags, o.Version = env.app(), g.flags(), version
	return o
}

// flags are the global flags as the app takes them.
func (g *globalFlags) flags() setup.Flags {
	return setup.Flags{Model: g.model, Profile: g.profile, Overrides: g.overrides, LogLevel: g.logLevel, Transport: g.transport,
		IgnoreUserConfig: g.ignoreUserConfig, BypassHookTrust: g.bypassHookTrust}
}

// home is the agent home (config.FindHome); its error is a usage error.
func (env Env) home() (string, error) {
	h, err := config.FindHome(env.Getenv)
	if err != nil {
		return "", usageError(err)
	}
	return h.Dir, nil
}

// loadConfig loads the configuration of the agent home with the global
// flags, printing its warnings (setup.LoadConfig); its errors are usage
// errors.
func (env Env) loadConfig(g *globalFlags) (string, config.Config, error) {
	home, err := env.home()
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, err := setup.LoadConfig(env.Stderr, home, g.flags())
	return home, cfg, err
}
