package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// Defaults of a provider's auth command, as in the reference client.
const (
	DefaultCommandTimeout         = 5 * time.Second
	DefaultCommandRefreshInterval = 5 * time.Minute
)

// CommandOptions describe [model_providers.<id>.auth]: a command whose
// standard output, trimmed, is the bearer token.
type CommandOptions struct {
	// Command is the program to run (looked up in PATH).
	Command string
	// Args are its arguments.
	Args []string
	// Timeout bounds one run; default [DefaultCommandTimeout].
	Timeout time.Duration
	// RefreshInterval is how long a token is reused before the command
	// runs again; default [DefaultCommandRefreshInterval].
	RefreshInterval time.Duration
	// Dir is the working directory; default the current one.
	Dir string
	// Now is the clock of RefreshInterval; default time.Now.
	Now func() time.Time
}

// CommandError says the auth command failed or printed no token.
type CommandError struct {
	Command string
	// Stderr is the start of what the command wrote to standard error.
	Stderr string
	Err    error
}

func (e *CommandError) Error() string {
	msg := fmt.Sprintf("auth: command %q: %v", e.Command, e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// Command is a bearer token printed by an external command, reused for
// the refresh interval and fetched anew after a 401. It is safe for
// concurrent use; at most one run is in flight.
type Command struct {
	opts    CommandOptions
	sem     chan struct{} // one run at a time, ctx-aware
	token   string        // guarded by sem
	fetched time.Time     // guarded by sem
}

// NewCommand returns the credentials of opts; nothing runs until the
// first request.
func NewCommand(opts CommandOptions) *Command {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultCommandTimeout
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = DefaultCommandRefreshInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Command{opts: opts, sem: make(chan struct{}, 1)}
}

// String names the command, never the token.
func (c *Command) String() string { return "command " + c.opts.Command }

func (c *Command) lock(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Command) unlock() { <-c.sem }

// Token returns the cached token, running the command when there is none
// or it is older than the refresh interval.
func (c *Command) Token(ctx context.Context) (string, error) {
	if err := c.lock(ctx); err != nil {
		return "", err
	}
	defer c.unlock()
	if c.token != "" && c.opts.Now().Sub(c.fetched) < c.opts.RefreshInterval {
		return c.token, nil
	}
	return c.run(ctx)
}

// Apply sets the Authorization header on h.
func (c *Command) Apply(ctx context.Context, h http.Header) error {
	tok, err := c.Token(ctx)
	if err != nil {
		return err
	}
	h.Set("Authorization", "Bearer "+tok)
	return nil
}

// Refresh runs the command again after a 401 on a request authenticated
// with sent, unless a concurrent request already did, and reports that the
// request may be retried.
func (c *Command) Refresh(ctx context.Context, sent http.Header) (retry bool, err error) {
	if err := c.lock(ctx); err != nil {
		return false, err
	}
	defer c.unlock()
	if c.token != "" && c.token != bearer(sent) {
		return true, nil
	}
	if _, err := c.run(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// run runs the command; the caller holds sem.
func (c *Command) run(parent context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.opts.Command, c.opts.Args...)
	cmd.Dir = c.opts.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limitWriter{w: &stderr, n: 500}
	err := cmd.Run()
	switch {
	case err != nil && parent.Err() != nil:
		return "", parent.Err() // cancelled by the caller, not a failure
	case err != nil && ctx.Err() != nil:
		// Not wrapped: a timeout of the command is its failure, not the
		// caller's deadline.
		err = fmt.Errorf("no token within %v", c.opts.Timeout)
	}
	tok := strings.TrimSpace(stdout.String())
	if err == nil && tok == "" {
		err = errors.New("printed no token")
	}
	if err != nil {
		return "", &CommandError{Command: c.opts.Command, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	c.token, c.fetched = tok, c.opts.Now()
	return tok, nil
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
