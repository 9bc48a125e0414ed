package main

import (
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

// scope is one session of a shared engine (exec --batch runs one per
// prompt): what a session has of its own — its id, its model clients
// (session id header, WebSocket connection, sticky fallback) over the
// engine's connection pool and credentials, the workspace and tools of its
// directory, with the engine's MCP servers, and its initial context.
// Config, the log, the HTTP pool, the auth manager, the MCP servers and
// the demo server stay the engine's, built once.
type scope struct {
	id      string
	sess    *session.Session
	closers []func()
}

// scope starts a new session of the engine working in dir ("" the
// engine's directory), recorded unless the engine is ephemeral. The caller
// must Close it.
func (e *engine) scope(dir string) (_ *scope, err error) {
	sc := &scope{id: newSessionID()}
	defer func() {
		if err != nil {
			sc.Close()
		}
	}()
	ws := e.ws
	if dir != "" && dir != e.ws.cwd {
		if ws, err = e.workspaceFor(dir); err != nil {
			return nil, usageError(err)
		}
	}
	set, err := ws.tools()
	if err != nil {
		return nil, err
	}
	sc.closers = append(sc.closers, func() { set.Close() })
	if e.mcpServers != nil {
		set.AddSource(e.mcpServers.Tools)
	}
	initial, err := ws.context(e.cfg, e.home, time.Now())
	if err != nil {
		return nil, err
	}
	co := e.clientOpts
	co.SessionID = sc.id
	c := modelclient.New(co)
	sc.closers = append(sc.closers, func() { c.Close() })
	opts := e.opts
	opts.Client, opts.Tools, opts.Context, opts.ApprovalPolicy = c, set, initial, ws.policy
	opts.Fallback = nil
	for i, fo := range e.fallbackClients {
		fo.SessionID = sc.id
		fc := modelclient.New(fo)
		sc.closers = append(sc.closers, func() { fc.Close() })
		opts.Fallback = append(opts.Fallback, session.Alternative{Candidate: e.fallbacks[i].Candidate, Client: fc})
	}
	closeRec, err := e.recordAs(&opts, sc.id, ws.cwd)
	if err != nil {
		return nil, err
	}
	sc.closers = append(sc.closers, closeRec)
	sc.sess = session.New(opts)
	return sc, nil
}

// Close ends the session's clients, tools and recording.
func (sc *scope) Close() {
	for i := len(sc.closers) - 1; i >= 0; i-- {
		sc.closers[i]()
	}
	sc.closers = nil
}
