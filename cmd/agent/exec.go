package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/demo"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
)

func newExecCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "exec [PROMPT]",
		Short: "Run one non-interactive turn and print the answer",
		Long: `Run one turn without the interactive UI. The prompt is the argument, or
standard input when the argument is "-" or absent; a prompt plus piped
standard input sends the input as a <stdin> block after the prompt.

Each completed assistant message goes to standard output; retries and other
notices go to standard error. Exit codes: 0 completed, 1 turn failed,
2 usage or config error, 3 authentication, 4 quota or usage limit,
5 transient failures outlasted every retry budget, 130 interrupted.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExec(ctx, env, g, args)
		},
	}
	return cmd
}

func runExec(ctx context.Context, env Env, g *globalFlags, args []string) error {
	prompt, err := readPrompt(env, args)
	if err != nil {
		return usageError(err)
	}
	home, err := agentHome(env.Getenv)
	if err != nil {
		return usageError(err)
	}
	cfg, err := config.Load(config.Options{
		Home: home, Profile: g.profile, Overrides: g.overrides, Model: g.model,
	})
	if err != nil {
		return usageError(err)
	}
	logger, closeLog := openLog(home, g.logLevel, env)
	defer closeLog()

	p := cfg.Provider
	switch g.transport {
	case "":
	case provider.TransportAuto, provider.TransportWebSocket, provider.TransportHTTPS:
		p.Transport = g.transport
	default:
		return usageError(fmt.Errorf("--transport %q: want auto, websocket or https", g.transport))
	}
	httpClient, err := modelclient.NewHTTPClient(cfg.CACertificate)
	if err != nil {
		return usageError(err)
	}
	var tokens modelclient.TokenSource
	if p.Demo {
		base, stop, err := demo.Start(ctx, demo.Options{Faults: true, Pace: demoPace(env)})
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		defer stop()
		p.BaseURL = base
		fmt.Fprintln(env.Stderr, "agent: using the offline demo provider (scripted answers, no API key, no network)")
	} else {
		key, err := auth.FromEnv(p, env.Getenv, "AGENT_API_KEY")
		if err != nil {
			return &exitError{code: exitAuth, err: err}
		}
		if key != nil {
			tokens = key
		}
	}
	if p.BaseURL == "" {
		p.BaseURL = "https://api.openai.com/v1" // the reference client's default
	}
	client := modelclient.New(modelclient.Options{
		Provider:         p,
		Model:            cfg.Model,
		ReasoningEffort:  cfg.ModelReasoningEffort,
		ReasoningSummary: cfg.ModelReasoningSummary,
		Auth:             tokens,
		SessionID:        newSessionID(),
		Originator:       "agent_exec",
		Version:          version,
		Getenv:           env.Getenv,
		HTTPClient:       httpClient,
		Sleep:            env.Sleep,
		Rand:             env.Rand,
		Logger:           logger,
	})
	defer client.Close()
	sess := session.New(session.Options{
		Client:                     client,
		UnboundedConnectionRetries: cfg.Features.UnboundedConnectionRetries,
	})
	out := newExecPrinter(env)
	err = sess.Turn(ctx, prompt, out.handle)
	out.finish()
	if err == nil {
		return nil
	}
	return &exitError{code: exitCode(err), err: err}
}

// exitCode maps a turn's failure to the documented exit codes.
func exitCode(err error) int {
	var te *session.TurnError
	if !errors.As(err, &te) {
		return exitFailed
	}
	switch te.Failure.Kind {
	case modelclient.KindCanceled:
		return exitInterrupted
	case modelclient.KindAuth:
		return exitAuth
	case modelclient.KindQuota, modelclient.KindUsageLimit:
		return exitQuota
	}
	if te.Exhausted {
		return exitExhausted
	}
	return exitFailed
}

// readPrompt applies exec's prompt rules: "-" or no argument reads stdin;
// an argument plus piped stdin appends it as a <stdin> block.
func readPrompt(env Env, args []string) (string, error) {
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	if arg == "-" || arg == "" {
		if env.StdinTTY {
			return "", errors.New("no prompt: pass one as an argument or pipe it on standard input")
		}
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		p := strings.TrimSpace(string(b))
		if p == "" {
			return "", errors.New("no prompt: standard input was empty")
		}
		return p, nil
	}
	if env.StdinTTY || !stdinHasData(env.Stdin) {
		return arg, nil
	}
	b, err := io.ReadAll(env.Stdin)
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if s := strings.TrimRight(string(b), "\n"); s != "" {
		return arg + "\n\n<stdin>\n" + s + "\n</stdin>", nil
	}
	return arg, nil
}

// stdinHasData reports whether stdin is a pipe or a file worth reading (not
// /dev/null or another character device that would block or mean nothing).
func stdinHasData(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}

func newSessionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
