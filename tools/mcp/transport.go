package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/shellenv"
)

// Process shutdown: after its input is closed a stdio server has
// terminateAfter to exit before it is sent SIGTERM (then SIGKILL), and its
// stderr is read for at most waitDelay once it has exited.
const (
	terminateAfter = 2 * time.Second
	waitDelay      = time.Second
)

// maxStderrLine caps one logged stderr line.
const maxStderrLine = 4096

// transport builds the SDK transport of s.
func (m *Manager) transport(s *server, log *slog.Logger) (gomcp.Transport, error) {
	cfg := s.cfg
	if cfg.URL != "" {
		return m.httpTransport(cfg)
	}
	if cfg.Command == "" {
		return nil, fmt.Errorf("no command and no url")
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.Dir = cfg.Cwd
	if cmd.Dir == "" {
		cmd.Dir = m.opts.Cwd
	}
	cmd.Env = m.env(cfg)
	s.stderr = &stderrLog{log: log}
	cmd.Stderr = s.stderr
	cmd.WaitDelay = waitDelay
	return &gomcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, nil
}

// env is the environment of a stdio server, as [shellenv.ForMCPServer]
// builds it: the base variables and those of cfg.EnvVars that are set
// (not empty), then cfg.Env.
func (m *Manager) env(cfg ServerConfig) []string {
	pol := shellenv.ForMCPServer(cfg.EnvVars, cfg.Env)
	var environ []string
	for _, k := range pol.Names {
		if v := m.opts.Getenv(k); v != "" {
			environ = append(environ, k+"="+v)
		}
	}
	return pol.Build(environ)
}

// httpTransport builds the streamable HTTP transport of cfg.
func (m *Manager) httpTransport(cfg ServerConfig) (gomcp.Transport, error) {
	h := http.Header{}
	for k, v := range cfg.HTTPHeaders {
		h.Set(k, v)
	}
	for k, name := range cfg.EnvHTTPHeaders {
		if v := m.opts.Getenv(name); strings.TrimSpace(v) != "" {
			h.Set(k, v)
		}
	}
	if name := cfg.BearerTokenEnvVar; name != "" {
		tok := m.opts.Getenv(name)
		if strings.TrimSpace(tok) == "" {
			return nil, fmt.Errorf("the environment variable %s (bearer_token_env_var) is not set", name)
		}
		h.Set("Authorization", "Bearer "+strings.TrimSpace(tok))
	}
	client := &http.Client{Transport: &headerTransport{base: m.http, header: h, closing: m.closing}}
	return &gomcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}, nil
}

// headerTransport adds fixed headers to every request, and cancels every
// request still in flight once closing is done: the SDK's best-effort
// messages to a server that does not answer (a cancellation, a session
// DELETE) must not hold up the agent's exit.
type headerTransport struct {
	base    http.RoundTripper
	header  http.Header
	closing context.Context
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(t.closing, cancel)
	r = r.Clone(ctx)
	for k, v := range t.header {
		r.Header[k] = slices.Clone(v)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { stop(); cancel() }}
	return resp, nil
}

// releasingBody runs release once the body is closed.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// stderrLog logs a stdio server's standard error, one record a line, and
// remembers the last line for error messages. It is safe for concurrent
// use.
type stderrLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	buf  []byte
	last string
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i, skip := bytes.IndexByte(w.buf, '\n'), 1
		if i < 0 && len(w.buf) < maxStderrLine {
			break
		}
		if i < 0 || i > maxStderrLine {
			i, skip = maxStderrLine, 0 // an overlong line is logged in pieces
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+skip:]
	}
	return len(p), nil
}

func (w *stderrLog) line(s string) {
	s = strings.TrimRight(s, "\r")
	if strings.TrimSpace(s) == "" {
		return
	}
	w.last = s
	w.log.Info("mcp server stderr", "line", s)
}

// Last returns the last line written, including an unfinished one.
func (w *stderrLog) Last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := strings.TrimSpace(string(w.buf)); s != "" {
		return s
	}
	return w.last
}
