package acp

import (
	"context"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/rollout"
)

var (
	_ sdk.Agent       = (*Server)(nil)
	_ sdk.AgentLoader = (*Server)(nil)
)

// Initialize tells the client what agent does: load recorded sessions,
// take images and embedded context in prompts.
func (s *Server) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{}},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "agent", Version: s.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is not needed: agent uses the login and keys of its config.
func (s *Server) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": "agent offers no authentication methods: it uses the login and keys of its config (agent login)"})
}

// NewSession opens a new session working in the client's directory.
func (s *Server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return sdk.NewSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", p.Cwd)})
	}
	se, err := s.open(ctx, app.Spec{Cwd: p.Cwd, MCPServers: s.mcpServers(p.McpServers)})
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(se.id), Modes: se.modes(), Models: se.modelState(ctx), ConfigOptions: se.configOptions(ctx)}, nil
}

// LoadSession opens a recorded session by id, sends its history as
// session/update notifications and then answers, the session ready for
// the next prompt.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ent, err := rollout.Find(ctx, s.opts.App.Home(), string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %s: %v", p.SessionId, err)})
	}
	s.mu.Lock()
	_, open := s.sessions[ent.ID]
	s.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open on this connection", ent.ID)})
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = ent.Cwd
	}
	se, err := s.open(ctx, app.Spec{From: ent.Path, Cwd: cwd, MCPServers: s.mcpServers(p.McpServers)})
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := se.replay(ctx); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: se.modes(), Models: se.modelState(ctx), ConfigOptions: se.configOptions(ctx)}, nil
}

// open opens a session on the app and registers it; past the cap it
// opens none.
func (s *Server) open(ctx context.Context, sp app.Spec) (*session, error) {
	s.mu.Lock()
	if n := len(s.sessions) + s.opening; n >= s.opts.MaxSessions {
		s.mu.Unlock()
		return nil, &sdk.RequestError{Code: ErrTooManySessions, Message: fmt.Sprintf(
			"too many sessions: this connection holds %d open, its maximum (agent acp --max-sessions); close one with session/close first", n)}
	}
	s.opening++
	s.mu.Unlock()
	se := &session{s: s, rejected: map[string]bool{}, terminals: s.showsTerminals()}
	sp.Approve = se.approve
	if s.usesEditor() {
		se.ed = editor{se}
		sp.Editor = se.ed
	}
	t, err := s.opts.App.Open(ctx, sp)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening--
	if err != nil {
		return nil, err
	}
	se.t, se.id = t, t.ID
	if s.closed {
		go se.close()
		return nil, fmt.Errorf("the connection is closing")
	}
	s.sessions[se.id] = se
	return se, nil
}

// session returns the open session of id.
func (s *Server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	se := s.sessions[string(id)]
	if se == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no open session %s (session/new or session/load opens one)", id)})
	}
	return se, nil
}

// Prompt runs a turn of the session, streaming its updates, and answers
// with how it stopped.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return se.prompt(ctx, p.Prompt)
}

// Cancel stops the session's running turn: its prompt answers cancelled.
func (s *Server) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	se, err := s.session(p.SessionId)
	if err != nil {
		return err
	}
	se.cancel()
	return nil
}

// SetSessionMode sets the session's approval preset; current_mode_update
// and config_option_update follow.
func (s *Server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := se.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	se.changed(ctx)
	return sdk.SetSessionModeResponse{}, nil
}

// UnstableSetSessionModel sets the session's model (session/set_model,
// the unstable way older clients choose one); config_option_update
// follows.
func (s *Server) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	se, err := s.session(sdk.SessionId(p.SessionId))
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	if err := se.setModel(ctx, string(p.ModelId)); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	se.changed(ctx)
	return sdk.UnstableSetSessionModelResponse{}, nil
}

// CloseSession closes a session: its running turn interrupted (recorded
// so), its place under the cap freed. session/load opens it again.
func (s *Server) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.mu.Lock()
	delete(s.sessions, se.id)
	s.mu.Unlock()
	se.close()
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions is not offered (no sessionCapabilities.list).
func (s *Server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession is not offered (no sessionCapabilities.resume): session/load
// resumes.
func (s *Server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption sets one of the session's config options (mode,
// model, reasoning_effort) from its next turn on and answers all of them.
// A change of mode is also told as current_mode_update.
func (s *Server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "agent's config options are selects: the value is an option's id"})
	}
	se, err := s.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	mode := se.currentMode()
	if err := se.setOption(ctx, string(v.ConfigId), string(v.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if m := se.currentMode(); m != mode {
		se.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m), SessionUpdate: "current_mode_update"}})
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: se.configOptions(ctx)}, nil
}
