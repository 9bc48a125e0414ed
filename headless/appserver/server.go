package appserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/app"
)

// DefaultMaxThreads is how many threads one server holds open at once by
// default; a thread/start or thread/resume past it is refused.
const DefaultMaxThreads = 16

// Options configure a [Server].
type Options struct {
	// App is the process scope every thread opens on.
	App *app.App
	// Version is agent's version, the threads' cliVersion.
	Version string
	// MaxThreads caps the threads open at once (0: [DefaultMaxThreads]).
	MaxThreads int
	// Log receives the server's diagnostics; nil discards them.
	Log *slog.Logger
	// Models lists the provider's models for model/list (nil: only the
	// configured model).
	Models func(ctx context.Context) []string
	// Account is the signed-in account as Codex's Account object
	// ({"type":"apiKey"} or {"type":"chatgpt",...}), nil when none.
	Account func() map[string]any
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Server serves the app-server protocol to any number of connections,
// sharing its threads among them. Its methods are safe for concurrent use.
type Server struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	threads map[string]*thread
	opening int
	closed  bool
}

// New returns a server of o.
func New(o Options) *Server {
	if o.MaxThreads <= 0 {
		o.MaxThreads = DefaultMaxThreads
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: o, log: log, threads: map[string]*thread{}}
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Serve serves one connection until the client goes away or ctx ends;
// the threads it alone was subscribed to are interrupted and closed.
func (s *Server) Serve(ctx context.Context, conn Conn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	c := &client{s: s, conn: conn, ctx: ctx, log: s.log,
		waiting: map[string]chan response{}, subscribed: map[string]*thread{}, optOut: map[string]bool{}}
	err := c.serve()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return err
}

// Close interrupts every turn and closes every thread.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	ths := make([]*thread, 0, len(s.threads))
	for _, th := range s.threads {
		ths = append(ths, th)
	}
	s.mu.Unlock()
	for _, th := range ths {
		th.close()
	}
}

// reserve takes a slot for a thread about to open, or says why not.
func (s *Server) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the server is shutting down")
	}
	if len(s.threads)+s.opening >= s.opts.MaxThreads {
		return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf(
			"agent app-server holds at most %d threads at once (--max-threads); unsubscribe from one (thread/unsubscribe) first", s.opts.MaxThreads)}
	}
	s.opening++
	return nil
}

// opened registers th (nil: the open failed) and frees its reservation.
func (s *Server) opened(th *thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening--
	if th != nil {
		s.threads[th.id] = th
	}
}

// loaded returns the open thread of id, nil when none.
func (s *Server) loaded(id string) *thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threads[id]
}

// loadedIDs lists the open threads' ids, sorted.
func (s *Server) loadedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.threads))
	for id := range s.threads {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// forget removes th from the open threads.
func (s *Server) forget(th *thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.threads[th.id] == th {
		delete(s.threads, th.id)
	}
}

// platformFamily is initialize's platformFamily.
func platformFamily() string {
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "unix"
}
