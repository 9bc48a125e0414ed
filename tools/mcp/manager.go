package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/tools"
)

// closeGrace is how long Close lets servers part before it cuts the HTTP
// requests still in flight.
const closeGrace = 500 * time.Millisecond

// stopWait bounds how long a call that saw its server's connection break
// waits for the server's exit to be recorded.
const stopWait = 2 * time.Second

// Defaults of [ServerConfig], as Codex's.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// ServerConfig is one MCP server: a command speaking MCP on its standard
// input and output (stdio), or the URL of a streamable HTTP endpoint.
type ServerConfig struct {
	// Name is the server's name in the configuration ([mcp_servers.NAME]).
	Name string

	// Command and Args start a stdio server. Env is added to its
	// environment, after the variables named in EnvVars, which are taken
	// from the agent's environment (on top of a minimal set: PATH, HOME,
	// USER, LANG, ...). Cwd is its working directory; "" means
	// [Options.Cwd].
	Command string
	Args    []string
	Env     map[string]string
	EnvVars []string
	Cwd     string

	// URL is a streamable HTTP endpoint. BearerTokenEnvVar names the
	// environment variable holding a bearer token for it; HTTPHeaders are
	// sent as they are, and EnvHTTPHeaders map a header to the environment
	// variable holding its value (skipped when unset or blank).
	URL               string
	BearerTokenEnvVar string
	HTTPHeaders       map[string]string
	EnvHTTPHeaders    map[string]string

	// StartupTimeout bounds the start (initialize and tools/list);
	// [DefaultStartupTimeout] when zero.
	StartupTimeout time.Duration
	// ToolTimeout bounds each tool call; [DefaultToolTimeout] when zero.
	ToolTimeout time.Duration
	// EnabledTools, when non-nil, lists the only tools offered;
	// DisabledTools are then removed.
	EnabledTools  []string
	DisabledTools []string
	// ParallelToolCalls says the server's tools may run concurrently with
	// other calls.
	ParallelToolCalls bool
	// DefaultApproval is the server's default_tools_approval_mode and
	// ToolApproval each tool's approval_mode (Codex's "auto", "prompt",
	// "writes", "approve"; "" is auto): see [Tool.Run].
	DefaultApproval string
	ToolApproval    map[string]string
}

// Options configure a [Manager].
type Options struct {
	// Servers are the servers to start.
	Servers []ServerConfig
	// Policy is the approval policy ([tools.PolicyUntrusted], ...) and
	// Sandbox the sandbox mode: together with each tool's annotations and
	// approval mode they decide which calls ask ([Tool.Run]).
	Policy  string
	Sandbox string
	// Cwd is the working directory of stdio servers without their own;
	// "" means the agent's.
	Cwd string
	// Getenv reads the agent's environment; default os.Getenv.
	Getenv func(string) string
	// Logger receives the servers' stderr and the manager's diagnostics;
	// default a discarding logger.
	Logger *slog.Logger
	// OnNotice, if non-nil, is told each time a server becomes ready
	// (again when its tool list changes), fails to start or stops. It is called from the manager's goroutines,
	// one notice at a time, so it must not block for long.
	OnNotice func(Notice)
	// AskUser, if non-nil, asks the person a server's elicitation
	// (elicit.go) in the chat's question box; nil declines every one.
	AskUser func(ctx context.Context, req tools.UserInputRequest) (map[string][]string, bool)
	// Version is the client version reported to servers; default "dev".
	Version string
	// AfterFunc starts the timer that ends a tool call after its
	// ToolTimeout: it calls f after d, unless the returned stop is called
	// first. Default [time.AfterFunc]; tests replace it.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// State is where a server is in its life.
type State int

// The states of a server.
const (
	Starting State = iota
	Ready
	Failed  // it did not start
	Stopped // it was ready, then stopped (crashed, or closed by Close)
)

func (s State) String() string {
	switch s {
	case Starting:
		return "starting"
	case Ready:
		return "ready"
	case Failed:
		return "failed"
	case Stopped:
		return "stopped"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Notice is a change of a server's state worth telling the user.
type Notice struct {
	Server string
	State  State
	// Tools is the number of tools offered (Ready).
	Tools int
	// Err says why the server failed or stopped.
	Err error
}

// String is the notice as one line, for example
// `server "docs" failed to start: ...; continuing without its tools`.
func (n Notice) String() string {
	switch n.State {
	case Ready:
		return fmt.Sprintf("server %q ready (%d tools)", n.Server, n.Tools)
	case Failed:
		return fmt.Sprintf("server %q failed to start: %v; continuing without its tools", n.Server, n.Err)
	case Stopped:
		return fmt.Sprintf("server %q stopped: %v; its tools are no longer available", n.Server, n.Err)
	}
	return fmt.Sprintf("server %q %s", n.Server, n.State)
}

// Status is a snapshot of one server.
type Status struct {
	Name  string
	State State
	// Tools are the model-facing names of its tools (Ready).
	Tools []string
	// Err says why it failed or stopped.
	Err error
}

// Manager runs the MCP servers of one agent process. Its methods are safe
// for concurrent use.
type Manager struct {
	opts    Options
	servers []*server // sorted by name
	http    *http.Transport
	started chan struct{} // closed once no server is Starting
	closing context.Context
	// closeAll cancels closing: Close aborts HTTP requests in flight.
	closeAll context.CancelFunc

	mu        sync.Mutex
	starting  int
	gen       int // bumped whenever the ready tools change
	cached    []tools.Tool
	cachedGen int
	cancel    context.CancelFunc
	closed    bool

	wg sync.WaitGroup
}

// server is the state of one configured server; its mutable fields are
// guarded by Manager.mu.
type server struct {
	cfg      ServerConfig
	refresh  chan struct{} // tools/list_changed arrived
	reprompt chan struct{} // prompts/list_changed arrived
	done     chan struct{} // closed when run returns, its last notice given
	stderr   *stderrLog

	state   State
	err     error
	session *gomcp.ClientSession
	tools   []*gomcp.Tool
	prompts []*gomcp.Prompt // of a server that offers prompts
}

// New returns a manager for opts.Servers; nothing starts before
// [Manager.Start]. The caller must call [Manager.Close].
func New(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	m := &Manager{opts: opts, started: make(chan struct{}), cachedGen: -1}
	m.closing, m.closeAll = context.WithCancel(context.Background())
	for _, cfg := range opts.Servers {
		if cfg.StartupTimeout <= 0 {
			cfg.StartupTimeout = DefaultStartupTimeout
		}
		if cfg.ToolTimeout <= 0 {
			cfg.ToolTimeout = DefaultToolTimeout
		}
		m.servers = append(m.servers, &server{cfg: cfg, refresh: make(chan struct{}, 1), reprompt: make(chan struct{}, 1), done: make(chan struct{})})
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	if base, ok := http.DefaultTransport.(*http.Transport); ok {
		m.http = base.Clone()
	} else {
		m.http = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	m.starting = len(m.servers)
	if m.starting == 0 {
		close(m.started)
	}
	return m
}

// Start starts every server in the background and returns at once. The
// servers run until ctx is done or [Manager.Close] is called. Start may
// be called once; later calls do nothing.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cancel != nil || m.closed {
		return
	}
	ctx, m.cancel = context.WithCancel(ctx)
	for _, s := range m.servers {
		m.wg.Go(func() { m.run(ctx, s) })
	}
}

// Started returns a channel closed once every server is ready or has
// failed to start (at once when there are none; never if Start is not
// called).
func (m *Manager) Started() <-chan struct{} { return m.started }

// Close stops every server and waits for them and for every goroutine of
// the manager. Calls in progress fail. Servers get half a second to part
// (stdio servers longer to exit: their input is closed, then SIGTERM
// follows after 2 s); HTTP requests still in flight are then cut, so a
// hung server delays Close by at most that. Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	// Servers get closeGrace to part politely (the SDK tells an HTTP
	// server its session is over); requests still in flight then are cut.
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	m.closeAll()
	<-done
	m.http.CloseIdleConnections()
	return nil
}

// Servers returns the state of every server, by name.
func (m *Manager) Servers() []Status {
	names := m.names()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		st := Status{Name: s.cfg.Name, State: s.state, Err: s.err}
		if s.state == Ready {
			for _, t := range s.tools {
				st.Tools = append(st.Tools, names[Key{s.cfg.Name, t.Name}])
			}
		}
		out = append(out, st)
	}
	return out
}

// Tools returns the tools of the servers that are ready now, ordered by
// server name, then as each server lists them, and Codex's three resource
// tools (resource.go) while a ready server offers resources. The slice is
// shared: do not modify it. It is the source to give [tools.Set.AddSource].
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cachedGen == m.gen {
		return m.cached
	}
	names := m.namesLocked()
	var out []tools.Tool
	resources := false
	for _, s := range m.servers {
		if s.state != Ready {
			continue
		}
		for _, t := range s.tools {
			out = append(out, newTool(m, s, t, names[Key{s.cfg.Name, t.Name}]))
		}
		resources = resources || s.session != nil && offersResources(s.session)
	}
	if resources {
		out = append(out, m.resourceTools()...)
	}
	m.cached, m.cachedGen = out, m.gen
	return out
}

func (m *Manager) names() map[Key]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.namesLocked()
}

// namesLocked names the tools of the ready servers; m.mu is held.
func (m *Manager) namesLocked() map[Key]string {
	var keys []Key
	for _, s := range m.servers {
		if s.state == Ready {
			for _, t := range s.tools {
				keys = append(keys, Key{s.cfg.Name, t.Name})
			}
		}
	}
	return Names(keys)
}

// run starts s, publishes its tools and watches it until it stops or ctx
// is done.
func (m *Manager) run(ctx context.Context, s *server) {
	defer close(s.done)
	log := m.opts.Logger.With("mcp_server", s.cfg.Name)
	log.Info("mcp server starting", "transport", s.transportName())
	begun := time.Now()
	cs, list, err := m.connect(ctx, s, log)
	if err != nil {
		log.Warn("mcp server failed to start", "err", err)
		m.update(s, Failed, err, nil, nil, ctx.Err() == nil)
		return
	}
	log.Info("mcp server ready", "tools", len(list), "elapsed", time.Since(begun).Round(time.Millisecond))
	m.listPrompts(ctx, s, cs, log)
	m.update(s, Ready, nil, cs, list, true)

	waited := make(chan error, 1)
	m.wg.Go(func() { waited <- cs.Wait() })
	for {
		select {
		case err := <-waited:
			_ = cs.Close()
			err = s.exitError(err)
			log.Warn("mcp server stopped", "err", err)
			m.update(s, Stopped, err, nil, nil, ctx.Err() == nil)
			return
		case <-ctx.Done():
			_ = cs.Close()
			<-waited
			m.update(s, Stopped, context.Cause(ctx), nil, nil, false)
			return
		case <-s.refresh:
			lctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
			list, err := listTools(lctx, cs, s.cfg)
			cancel()
			if err != nil {
				log.Warn("mcp server: listing tools after tools/list_changed failed", "err", err)
				continue
			}
			log.Info("mcp server: tools/list_changed heard", "tools", len(list))
			// A list the same as before (servers announce a change at
			// start) is not news: one "ready" notice per server.
			m.update(s, Ready, nil, cs, list, !sameTools(m.toolsOf(s), list))
		case <-s.reprompt:
			m.listPrompts(ctx, s, cs, log)
		}
	}
}

// update records a new state of s and tells the user when notify is set.
func (m *Manager) update(s *server, st State, err error, cs *gomcp.ClientSession, list []*gomcp.Tool, notify bool) {
	m.mu.Lock()
	wasStarting := s.state == Starting
	s.state, s.err, s.session, s.tools = st, err, cs, list
	if cs == nil {
		s.prompts = nil
	}
	m.gen++
	if wasStarting && st != Starting {
		m.starting--
		if m.starting == 0 {
			close(m.started)
		}
	}
	m.mu.Unlock()
	if notify && m.opts.OnNotice != nil {
		m.opts.OnNotice(Notice{Server: s.cfg.Name, State: st, Tools: len(list), Err: err})
	}
}

// awaitStop waits, up to stopWait, for the run of s to end after its
// connection broke, so that its notice is given before the call that saw
// the break returns; it returns why s stopped.
func (m *Manager) awaitStop(ctx context.Context, s *server) error {
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-s.done:
	case <-ctx.Done():
	case <-t.C:
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.state == Stopped {
		return s.err
	}
	return nil
}

// session returns the live session of s, or why there is none.
func (m *Manager) session(s *server) (*gomcp.ClientSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.state != Ready || s.session == nil {
		if s.err != nil {
			return nil, fmt.Errorf("the MCP server %q is not running: %w", s.cfg.Name, s.err)
		}
		return nil, fmt.Errorf("the MCP server %q is not running", s.cfg.Name)
	}
	return s.session, nil
}

// connect starts s and lists its tools within its startup timeout.
func (m *Manager) connect(ctx context.Context, s *server, log *slog.Logger) (*gomcp.ClientSession, []*gomcp.Tool, error) {
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	t, err := m.transport(s, log)
	if err != nil {
		return nil, nil, err
	}
	client := gomcp.NewClient(&gomcp.Implementation{Name: "agent", Version: m.opts.Version}, &gomcp.ClientOptions{
		Logger:       log,
		Capabilities: &gomcp.ClientCapabilities{}, // no roots or sampling
		// Declares elicitation (forms): asked in the chat, declined in exec.
		ElicitationHandler: func(ctx context.Context, req *gomcp.ElicitRequest) (*gomcp.ElicitResult, error) {
			return m.elicit(ctx, s.cfg.Name, req)
		},
		ToolListChangedHandler:   func(context.Context, *gomcp.ToolListChangedRequest) { signal(s.refresh) },
		PromptListChangedHandler: func(context.Context, *gomcp.PromptListChangedRequest) { signal(s.reprompt) },
	})
	cs, err := client.Connect(sctx, t, nil)
	if err != nil {
		return nil, nil, s.startError(sctx, err)
	}
	list, err := listTools(sctx, cs, s.cfg)
	if err != nil {
		_ = cs.Close()
		return nil, nil, s.startError(sctx, err)
	}
	return cs, list, nil
}

// signal makes a refresh pending on ch, unless one already is.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// startError words a start-up failure: a timeout says which setting to
// raise, and a stdio server's last stderr line is added.
func (s *server) startError(sctx context.Context, err error) error {
	if errors.Is(sctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within startup_timeout_sec (%s)", s.cfg.StartupTimeout)
	}
	return s.exitError(err)
}

// exitError adds the server's last stderr line, if any, to err.
func (s *server) exitError(err error) error {
	if err == nil {
		err = gomcp.ErrConnectionClosed
	}
	if s.stderr != nil {
		if line := s.stderr.Last(); line != "" {
			return fmt.Errorf("%w (stderr: %q)", err, line)
		}
	}
	return err
}

func (s *server) transportName() string {
	if s.cfg.URL != "" {
		return "streamable-http"
	}
	return "stdio"
}

// listTools lists every tool of cs, following pages, and applies the
// server's enabled_tools and disabled_tools.
func listTools(ctx context.Context, cs *gomcp.ClientSession, cfg ServerConfig) ([]*gomcp.Tool, error) {
	var out []*gomcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if cfg.EnabledTools != nil && !slices.Contains(cfg.EnabledTools, t.Name) {
			continue
		}
		if slices.Contains(cfg.DisabledTools, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// toolsOf is the tool list s has now.
func (m *Manager) toolsOf(s *server) []*gomcp.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.tools
}

// sameTools reports whether a and b name the same tools, in order.
func sameTools(a, b []*gomcp.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y *gomcp.Tool) bool { return x.Name == y.Name })
}
