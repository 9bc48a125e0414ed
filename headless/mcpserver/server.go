// Package mcpserver serves agent as an MCP server (`agent mcp-server`),
// with the official Go SDK: a tool that starts a session on a prompt and
// a tool that continues one by its id, each call a real turn of the
// engine the server is given ([Options.Start], [Options.Resume]). Calls
// run concurrently, each on its own session; a call's progress (retries
// with their wait, tool calls) goes to the client as progress
// notifications when it sent a progress token; a cancelled call (or a
// client that went away) stops its turn, which is recorded interrupted;
// approvals are asked of the client through elicitation when it supports
// it, and refused as under the never policy when it does not.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// The tools' names.
const (
	ToolStart = "agent"
	ToolReply = "agent-reply"
)

// Session is what a call needs of a session ([*session.Session]).
type Session interface {
	Turn(ctx context.Context, input string, emit func(session.Event)) error
	SaveError() error
}

// Opened is a session opened for a call: its id, the session, and Close,
// which ends what it holds (its clients, its rollout) once the turn is
// over.
type Opened struct {
	ID      string
	Session Session
	Close   func()
}

// StartOptions are a new session's settings as a call asks for them; ""
// leaves each to config (and the sandbox to read-only unless config says
// otherwise).
type StartOptions struct {
	// Cwd is the session's working directory; relative to the server's.
	Cwd            string
	Model          string
	Profile        string
	Sandbox        string // read-only, workspace-write or danger-full-access
	ApprovalPolicy string // untrusted, on-failure, on-request or never
	// BaseInstructions replace the default instructions;
	// DeveloperInstructions are sent as a developer message.
	BaseInstructions      string
	DeveloperInstructions string
	// Approve decides the calls the approval policy asks about: through
	// the client's elicitation, or a refusal the model is told of. The
	// server sets it.
	Approve func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
}

// Options configure a [Server].
type Options struct {
	// Version is agent's, reported to clients.
	Version string
	// Start opens a new session (required). Its error is the call's tool
	// error: it must say what was wrong (a cwd that does not exist, an
	// unknown profile).
	Start func(ctx context.Context, o StartOptions) (*Opened, error)
	// Resume opens the recorded session id (or a unique prefix of it) to
	// continue it (required). o holds the settings this server started it
	// with, when it did (else only Approve is set); an empty o.Cwd means
	// the session's recorded directory.
	Resume func(ctx context.Context, id string, o StartOptions) (*Opened, error)
	// ReplyToAny lets agent-reply continue any recorded session by its
	// full id (`agent mcp-server --reply-to-any-session`). Otherwise it
	// continues only the sessions this server started (by id or a unique
	// prefix): a client cannot read an earlier session of the user's.
	ReplyToAny bool
	// MaxCalls caps the turns running at once; further calls wait for one
	// to end (told so by a progress notification). Zero means
	// [DefaultMaxCalls].
	MaxCalls int
	// Logger logs the server's own troubles; nil discards them.
	Logger *slog.Logger
}

// DefaultMaxCalls is how many calls run a turn at once by default.
const DefaultMaxCalls = 4

// ReplyToAnyFlag is the command-line flag that sets [Options].ReplyToAny.
const ReplyToAnyFlag = "--reply-to-any-session"

// Server is agent's MCP server. Serve it with [Server.Run].
type Server struct {
	opts Options
	srv  *mcp.Server
	// turns counts the calls in progress: Run returns once they end.
	turns sync.WaitGroup

	mu sync.Mutex
	// stopped ends with Run's context: the turns in progress stop too
	// (the SDK waits for its calls before Run returns).
	stopped context.Context
	// started are the settings of the sessions this server started, for
	// their replies; busy the sessions running a turn now.
	started map[string]StartOptions
	busy    map[string]bool
	// slots holds one token per turn running; running counts them for
	// the queued notice.
	slots chan struct{}
}

// New returns a server over o.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	s := &Server{opts: o, stopped: context.Background(), started: map[string]StartOptions{}, busy: map[string]bool{},
		slots: make(chan struct{}, o.MaxCalls)}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "agent", Title: "agent", Version: o.Version}, &mcp.ServerOptions{
		Logger:                    o.Logger,
		SupportedProtocolVersions: protocolVersions(),
		Instructions: "agent is a coding agent. Call " + ToolStart + " with a prompt to start a session that works " +
			"in a directory (read-only unless sandbox says otherwise); it answers with the final message and " +
			"the session id (structuredContent.sessionId). Call " + ToolReply + " with that id and a prompt to continue it.",
	})
	mcp.AddTool(s.srv, startTool(), s.start)
	mcp.AddTool(s.srv, replyTool(), s.reply)
	return s
}

// sessionlessProtocol is the first MCP version without the initialize
// handshake, where a server may not send a request (an elicitation) while
// it serves a call: it must return the question as the call's result and
// be called again with the answer (multi round-trip, SEP-2322), which a
// turn that runs on cannot do.
const sessionlessProtocol = "2026-07-28"

// protocolVersions are the MCP versions the server speaks: the SDK's
// before [sessionlessProtocol], where an approval is an elicitation in the
// middle of the call. Clients of that version fall back to them.
func protocolVersions() []string {
	var vs []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < sessionlessProtocol {
			vs = append(vs, v)
		}
	}
	return vs
}

// Run serves the MCP protocol over t until the client disconnects or ctx
// ends, then waits for the turns in progress to stop and be recorded.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.mu.Lock()
	s.stopped = ctx
	s.mu.Unlock()
	err := s.srv.Run(ctx, t)
	s.turns.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // asked to stop
	}
	return err
}

// Output is a call's structured result: the session's id (SessionID, and
// ThreadID for clients written for the reference client's tool) and the
// turn's final message.
type Output struct {
	SessionID string `json:"sessionId" jsonschema:"the session's id: give it to agent-reply to continue the session"`
	ThreadID  string `json:"threadId" jsonschema:"the same id, as the reference client's tool named it"`
	Content   string `json:"content" jsonschema:"the turn's final message"`
}

// startInput are the arguments of the start tool.
type startInput struct {
	Prompt                string `json:"prompt" jsonschema:"the first user prompt of the new session"`
	Cwd                   string `json:"cwd,omitempty" jsonschema:"working directory of the session; relative to the server's (default: the server's)"`
	Model                 string `json:"model,omitempty" jsonschema:"the model (default: config's)"`
	Profile               string `json:"profile,omitempty" jsonschema:"a profile of agent's config.toml to take defaults from"`
	Sandbox               string `json:"sandbox,omitempty" jsonschema:"sandbox of the model's commands: read-only (default), workspace-write or danger-full-access"`
	ApprovalPolicy        string `json:"approval-policy,omitempty" jsonschema:"when the model's commands need approval, asked through elicitation: untrusted, on-failure, on-request or never (default: config's)"`
	BaseInstructions      string `json:"base-instructions,omitempty" jsonschema:"instructions to use instead of the default ones"`
	DeveloperInstructions string `json:"developer-instructions,omitempty" jsonschema:"instructions sent as a developer message"`
}

// replyInput are the arguments of the reply tool.
type replyInput struct {
	Prompt    string `json:"prompt" jsonschema:"the next user prompt of the session"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"the id of the session to continue (from a call's structuredContent), or a unique prefix of it"`
	ThreadID  string `json:"threadId,omitempty" jsonschema:"the same, as the reference client's tool named it"`
}

// start is the start tool's handler.
func (s *Server) start(ctx context.Context, req *mcp.CallToolRequest, in startInput) (*mcp.CallToolResult, Output, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, Output{}, errors.New("prompt is empty: say what the session should do")
	}
	o := StartOptions{
		Cwd: in.Cwd, Model: in.Model, Profile: in.Profile, Sandbox: in.Sandbox, ApprovalPolicy: in.ApprovalPolicy,
		BaseInstructions: in.BaseInstructions, DeveloperInstructions: in.DeveloperInstructions,
	}
	s.turns.Add(1)
	defer s.turns.Done()
	release, err := s.acquire(ctx, req)
	if err != nil {
		return nil, Output{}, err
	}
	defer release()
	o.Approve = approver(req.Session)
	op, err := s.opts.Start(ctx, o)
	if err != nil {
		return nil, Output{}, fmt.Errorf("start a session: %w", err)
	}
	defer op.Close()
	s.mu.Lock()
	o.Approve = nil
	s.started[op.ID] = o
	s.busy[op.ID] = true
	s.mu.Unlock()
	defer s.release(op.ID)
	return s.runTurn(ctx, req, op, in.Prompt)
}

// reply is the reply tool's handler.
func (s *Server) reply(ctx context.Context, req *mcp.CallToolRequest, in replyInput) (*mcp.CallToolResult, Output, error) {
	id := in.SessionID
	switch {
	case id == "" && in.ThreadID == "":
		return nil, Output{}, errors.New("say which session to continue: sessionId (from the structuredContent of the call that started it)")
	case id == "":
		id = in.ThreadID
	case in.ThreadID != "" && in.ThreadID != id:
		return nil, Output{}, fmt.Errorf("sessionId %q and threadId %q differ: give one", id, in.ThreadID)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, Output{}, errors.New("prompt is empty: say what the session should do next")
	}
	s.turns.Add(1)
	defer s.turns.Done()
	s.mu.Lock()
	id, ours, err := s.resolve(id)
	if err != nil {
		s.mu.Unlock()
		return nil, Output{}, err
	}
	if s.busy[id] {
		s.mu.Unlock()
		return nil, Output{}, fmt.Errorf("session %s is running a turn for another call: wait for that call's answer", id)
	}
	s.busy[id] = true
	o := s.started[id]
	s.mu.Unlock()
	defer s.release(id)
	releaseSlot, err := s.acquire(ctx, req)
	if err != nil {
		return nil, Output{}, err
	}
	defer releaseSlot()
	o.Approve = approver(req.Session)
	op, err := s.opts.Resume(ctx, id, o)
	if err != nil {
		return nil, Output{}, fmt.Errorf("continue session %s: %w", id, err)
	}
	defer op.Close()
	if !ours && op.ID != id {
		return nil, Output{}, fmt.Errorf("continue session %s: give the session's full id (%s is a prefix)", id, id)
	}
	return s.runTurn(ctx, req, op, in.Prompt)
}

// resolve returns the session a reply may continue for id: one this
// server started, named by its id or a unique prefix (ours), or, with
// ReplyToAny, id itself, which must be another session's full id. Call
// with s.mu held.
func (s *Server) resolve(id string) (full string, ours bool, err error) {
	if _, ok := s.started[id]; ok {
		return id, true, nil
	}
	var match []string
	for sid := range s.started {
		if strings.HasPrefix(sid, id) {
			match = append(match, sid)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], true, nil
	case len(match) > 1:
		return "", false, fmt.Errorf("session id %q is a prefix of %d sessions this server started: give more of it", id, len(match))
	case !s.opts.ReplyToAny:
		return "", false, fmt.Errorf("session %q was not started by this server: agent-reply continues only the sessions "+
			"this server started (start agent mcp-server with %s to continue any recorded session by its full id)", id, ReplyToAnyFlag)
	}
	return id, false, nil
}

// acquire waits for a turn slot (at most MaxCalls turns run at once),
// telling the client by progress that the call is queued, and returns
// the slot's release. It fails when ctx ends first.
func (s *Server) acquire(ctx context.Context, req *mcp.CallToolRequest) (release func(), err error) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	default:
	}
	newProgress(req).send(ctx, fmt.Sprintf("queued: %d calls are running a turn, the most this server runs at once; "+
		"this one starts when one of them ends", cap(s.slots)))
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("the call was cancelled while queued behind %d running calls", cap(s.slots))
	}
}

// release marks session id as no longer running a turn.
func (s *Server) release(id string) {
	s.mu.Lock()
	delete(s.busy, id)
	s.mu.Unlock()
}
