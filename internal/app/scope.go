package app

import (
	"context"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
)

// Session is a session of the app with its id. One the app owns
// ([App.NewSession], [App.Resume], [App.Fork]) ends with the app; one of
// [App.NewSessionIn] is the caller's to Close.
type Session struct {
	*session.Session
	ID      string
	closers []func()
	// rec records the session (nil when it is ephemeral); name is what
	// /rename named it ([Chat.Rename]; the chat's lock guards it).
	rec  *rollout.Recorder
	name string
}

// Close ends what the session holds of its own: its clients, tools and
// recording ([App.NewSessionIn]); a session the app owns ends with it.
func (s *Session) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// NewSession starts a session on the app's workspace, client and tools,
// recorded unless the app is ephemeral. The first has the id the app's
// client was made with; each later one a new id.
func (a *App) NewSession(ctx context.Context) (*Session, error) {
	if a.started {
		a.sessionID = NewSessionID()
	}
	a.started = true
	opts := a.opts
	rec, err := a.record(ctx, &opts)
	if err != nil {
		return nil, err
	}
	return &Session{Session: session.New(opts), ID: a.sessionID, rec: rec}, nil
}

// NewSessionIn starts a session of its own working in dir ("" the app's
// directory), recorded unless the app is ephemeral (exec --batch runs one
// per prompt): its id, its model clients (session id header, WebSocket
// connection, sticky fallback) over the app's connection pool and
// credentials, the workspace and tools of its directory with the app's
// MCP servers, and its initial context. Config, the log, the HTTP pool,
// the auth manager, the MCP servers and the demo server stay the app's.
// The caller must Close it.
func (a *App) NewSessionIn(ctx context.Context, dir string) (_ *Session, err error) {
	sc := &Session{ID: NewSessionID()}
	defer func() {
		if err != nil {
			sc.Close()
		}
	}()
	ws := a.ws
	if dir != "" && dir != a.ws.Cwd {
		if ws, err = a.workspaceFor(dir); err != nil {
			return nil, usageError(err)
		}
	}
	set, err := ws.tools()
	if err != nil {
		return nil, err
	}
	sc.closers = append(sc.closers, func() { set.Close() })
	if a.mcpServers != nil {
		set.AddSource(a.mcpServers.Tools)
	}
	initial, err := ws.context(a.cfg, a.home, a.env.now())
	if err != nil {
		return nil, err
	}
	opts := a.opts
	opts.Client, opts.Tools, opts.Context, opts.ApprovalPolicy = sc.client(a.clientOpts), set, initial, ws.Policy
	opts.Fallback = nil
	for i, fo := range a.fallbackClients {
		opts.Fallback = append(opts.Fallback, session.Alternative{Candidate: a.fallbacks[i].Candidate, Client: sc.client(fo)})
	}
	closeRec, rec, err := a.recordAs(ctx, &opts, sc.ID, ws.Cwd)
	if err != nil {
		return nil, err
	}
	sc.rec = rec
	sc.closers = append(sc.closers, closeRec)
	sc.Session = session.New(opts)
	return sc, nil
}

// client makes a model client of opts for the session, closed with it.
func (s *Session) client(opts modelclient.Options) *modelclient.Client {
	opts.SessionID = s.ID
	c := modelclient.New(opts)
	s.closers = append(s.closers, func() { c.Close() })
	return c
}
