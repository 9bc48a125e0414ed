package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/modelclient"
)

// LoginOptions are what agent login, logout and login status work with.
type LoginOptions struct {
	// Env is the process's; its Stderr gets the login's messages.
	Env   Env
	Flags Flags
	// Stdin holds the key of --with-api-key; StdinTTY says it is a
	// terminal (there is no key to read then).
	Stdin    io.Reader
	StdinTTY bool
	// Stdout receives login status's answer.
	Stdout io.Writer
}

// Login is agent login: a ChatGPT login in the browser (or with a device
// code), or the API key piped on standard input, saved in the credential
// store.
func Login(ctx context.Context, o LoginOptions, withAPIKey, deviceAuth bool) error {
	env := o.Env
	cfg, store, err := loginStore(o)
	if err != nil {
		return err
	}
	if withAPIKey {
		return loginWithAPIKey(ctx, o, cfg, store)
	}
	if cfg.ForcedLoginMethod == "api" {
		return usageError(errors.New("forced_login_method = \"api\": log in with `agent login --with-api-key`"))
	}
	httpClient, err := modelclient.NewHTTPClient(cfg.CACertificate)
	if err != nil {
		return usageError(err)
	}
	opts := auth.LoginOptions{
		Store:             store,
		Endpoints:         AuthEndpoints(env, cfg),
		HTTPClient:        httpClient,
		Originator:        "agent_cli",
		ForcedWorkspaceID: cfg.ForcedChatGPTWorkspaceID,
		Sleep:             env.Sleep,
	}
	var f *auth.File
	if deviceAuth {
		f, err = auth.LoginDevice(ctx, opts, func(u, code string) {
			fmt.Fprintf(env.Stderr, "To log in, open this page on any device:\n\n  %s\n\nand enter the code:\n\n  %s\n\nWaiting for approval (the code expires in 15 minutes)...\n", u, code)
		})
	} else {
		stop := func() {}
		f, err = auth.LoginBrowser(ctx, opts, func(u string) {
			fmt.Fprintf(env.Stderr, "Open this URL in a browser to log in:\n\n  %s\n\nWaiting for the browser (Ctrl-C to stop)...\n", u)
			stop = openBrowser(ctx, env, u)
		})
		stop()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("login interrupted")}
	case err != nil:
		return &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using ChatGPT%s. Saved to %s\n", describeAccount(f), store.Location())
	return nil
}

// loginWithAPIKey saves the API key piped on standard input.
func loginWithAPIKey(ctx context.Context, o LoginOptions, cfg config.Config, store *auth.Store) error {
	env := o.Env
	if cfg.ForcedLoginMethod == "chatgpt" {
		return usageError(errors.New("forced_login_method = \"chatgpt\": log in with `agent login`"))
	}
	if o.StdinTTY {
		return usageError(errors.New("--with-api-key reads the key from standard input: printenv OPENAI_API_KEY | agent login --with-api-key"))
	}
	b, err := io.ReadAll(io.LimitReader(o.Stdin, 64<<10))
	if err != nil {
		return usageError(fmt.Errorf("read the API key from stdin: %w", err))
	}
	key := strings.TrimSpace(string(b))
	if key == "" || strings.ContainsAny(key, " \t\r\n") {
		return usageError(errors.New("--with-api-key: standard input must hold exactly one API key"))
	}
	unlock, err := store.Lock(ctx)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	err = store.Save(&auth.File{AuthMode: auth.ModeAPIKey, OpenAIAPIKey: &key})
	unlock()
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using an API key (%s). Saved to %s\n", auth.Mask(key), store.Location())
	return nil
}

// LoginStatus is agent login status: how the user is logged in, never the
// secret; its error (exit 1) says they are not.
func LoginStatus(o LoginOptions) error {
	env := o.Env
	_, store, err := loginStore(o)
	if err != nil {
		return err
	}
	f, err := store.Load()
	if errors.Is(err, auth.ErrNotLoggedIn) {
		fmt.Fprintln(o.Stdout, "Not logged in")
		if env.Getenv("OPENAI_API_KEY") != "" {
			fmt.Fprintln(o.Stdout, "(OPENAI_API_KEY is set: the openai provider uses it)")
		}
		return &exitcode.Error{Code: exitcode.Failed, Err: errors.New("not logged in: run `agent login`")}
	}
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	if f.Mode() == auth.ModeAPIKey {
		fmt.Fprintf(o.Stdout, "Logged in using an API key: %s\n", auth.Mask(f.APIKey()))
		return nil
	}
	fmt.Fprintf(o.Stdout, "Logged in using ChatGPT%s\n", describeAccount(f))
	return nil
}

// describeAccount names a ChatGPT login without its secrets: the masked
// account id and the e-mail address.
func describeAccount(f *auth.File) string {
	var parts []string
	if id := f.AccountID(); id != "" {
		parts = append(parts, "account "+auth.Mask(id))
	}
	if e := f.Email(); e != "" {
		parts = append(parts, e)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// loginStore is what login, logout and login status work on: the
// configuration and the credential store it names
// (cli_auth_credentials_store) in AGENT_HOME. A bad home is a usage error,
// a store that cannot be opened (no keyring) an authentication one.
func loginStore(o LoginOptions) (config.Config, *auth.Store, error) {
	h, err := config.FindHome(o.Env.Getenv)
	if err != nil {
		return config.Config{}, nil, usageError(err)
	}
	cfg, err := LoadConfig(o.Env.Stderr, h.Dir, o.Flags)
	if err != nil {
		return config.Config{}, nil, err
	}
	store, err := OpenStore(o.Env, cfg, h.Dir, nil)
	if err != nil {
		return config.Config{}, nil, &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	return cfg, store, nil
}

// openBrowser opens u in the desktop's browser, if there is a desktop; it
// never runs in CI or over SSH. The returned stop ends the opener if it is
// still running and waits for it.
func openBrowser(ctx context.Context, env Env, u string) (stop func()) {
	if !hasDesktop(env) {
		return func() {}
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return func() {}
	}
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, name, append(args, u)...)
	if err := cmd.Start(); err != nil {
		cancel()
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}

// hasDesktop reports whether a browser can be opened on this machine.
func hasDesktop(env Env) bool {
	for _, v := range []string{"CI", "SSH_CONNECTION", "SSH_TTY", "AGENT_NO_BROWSER"} {
		if env.Getenv(v) != "" {
			return false
		}
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return env.Getenv("DISPLAY") != "" || env.Getenv("WAYLAND_DISPLAY") != ""
}

// Logout is agent logout: the saved login removed, under the credential
// lock (a refresh in flight elsewhere cannot write it back), even an
// unreadable one.
func Logout(ctx context.Context, o LoginOptions) error {
	env := o.Env
	_, store, err := loginStore(o)
	if err != nil {
		return err
	}
	line, err := removeLogin(ctx, store)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	fmt.Fprintln(env.Stderr, line)
	return nil
}

// removeLogin removes the login saved in store, even an unreadable one,
// and says what it did: "Logged out: removed PATH", or "Not logged in:
// nothing to remove".
func removeLogin(ctx context.Context, store *auth.Store) (string, error) {
	// Under the lock, so that a refresh in flight elsewhere cannot
	// write the login back after it is removed.
	unlock, err := store.Lock(ctx)
	if err != nil {
		return "", err
	}
	removed, err := store.Remove()
	unlock()
	switch {
	case err != nil:
		return "", err
	case removed:
		return "Logged out: removed " + store.Location(), nil
	}
	return "Not logged in: nothing to remove", nil
}
