// Package acp serves agent to editors over the Agent Client Protocol
// (ACP: JSON-RPC 2.0 lines on standard input and output), on
// github.com/coder/acp-go-sdk. Each ACP session is an [app.Thread] opened
// with [app.App.Open]; a prompt is a turn whose session events become
// session/update notifications; approvals are session/request_permission
// requests.
package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/internal/app"
)

// DefaultMaxSessions is how many sessions one connection holds open at
// once by default; a session/new or session/load past it is refused.
const DefaultMaxSessions = 16

// ErrTooManySessions is the JSON-RPC code of a session/new or
// session/load refused because the connection holds its maximum of
// sessions (a server error of JSON-RPC's range).
const ErrTooManySessions = -32001

// Options configure a [Server].
type Options struct {
	// App opens the sessions.
	App *app.App
	// Version is agent's version, told in initialize.
	Version string
	// Log receives what the connection could not do (a write that failed).
	Log *slog.Logger
	// MaxSessions caps the sessions open at once on the connection (0:
	// [DefaultMaxSessions]).
	MaxSessions int
}

// Server is one ACP connection's agent: its sessions.
type Server struct {
	opts Options
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*session
	// opening counts the sessions being opened: they hold a place under
	// the cap.
	opening int
	closed  bool
	// client is what the client said it can do in initialize.
	client sdk.ClientCapabilities
	// catalogue is the provider's models, asked once per connection
	// (under catMu: the question may take seconds).
	catMu     sync.Mutex
	catalogue []string
}

// New returns a server for one connection.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	return &Server{opts: opts, sessions: map[string]*session{}}
}

// Serve speaks ACP on in and out until in ends or ctx is done. A line that
// is not JSON gets a parse error (-32700), one that is not an object an
// invalid-request error (-32600), and the connection goes on. When it
// ends, every running turn is interrupted (and recorded so) and every
// session closed before Serve returns.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go filterLines(in, pw, w)
	s.conn = sdk.NewAgentSideConnection(s, w, pr)
	s.conn.SetLogger(s.opts.Log)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	pr.Close()
	s.closeAll()
	return nil
}

// models are the models sessions may choose, as the chat's /model lists
// them ([app.App.Models]): asked of the provider on the first call.
func (s *Server) models(ctx context.Context) []string {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if s.catalogue == nil {
		s.catalogue = s.opts.App.Models(ctx)
	}
	return s.catalogue
}

// closeAll interrupts every running turn, waits for it and closes every
// session.
func (s *Server) closeAll() {
	s.mu.Lock()
	s.closed = true
	all := make([]*session, 0, len(s.sessions))
	for _, se := range s.sessions {
		all = append(all, se)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, se := range all {
		se.close()
	}
}

// lineWriter writes whole lines, one writer at a time: the SDK's messages
// and the parse errors answered here never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// maxLine caps one incoming message, as the SDK's reader does.
const maxLine = 10 << 20

// filterLines copies the JSON object lines of in to pw and answers every
// other line with its JSON-RPC error on w; in's end closes pw.
func filterLines(in io.Reader, pw *io.PipeWriter, w io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			writeError(w, -32700, "Parse error: the line is not JSON")
			continue
		}
		if line[0] != '{' {
			writeError(w, -32600, "Invalid Request: a message is a JSON object")
			continue
		}
		if _, err := pw.Write(append(line, '\n')); err != nil {
			return
		}
	}
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		writeError(w, -32700, fmt.Sprintf("Parse error: a line longer than %d bytes; the connection ends", maxLine))
	}
	pw.CloseWithError(err)
}

// writeError writes a JSON-RPC error response without an id.
func writeError(w io.Writer, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Write(append(b, '\n'))
}
