package appserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Listen is where --listen says to serve.
type Listen struct {
	// Scheme is "stdio", "ws" or "unix".
	Scheme string
	// Addr is the ws address (IP:PORT) or the unix socket's path.
	Addr string
}

// ParseListen reads --listen: stdio:// (the default), ws://IP:PORT or
// unix://PATH. A ws address that is not loopback needs allowRemote.
func ParseListen(s string, allowRemote bool) (Listen, error) {
	if s == "" || s == "stdio://" || s == "stdio" {
		return Listen{Scheme: "stdio"}, nil
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return Listen{}, fmt.Errorf("--listen %q: want stdio://, ws://IP:PORT or unix://PATH", s)
	}
	switch scheme {
	case "ws":
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			return Listen{}, fmt.Errorf("--listen %q: %v", s, err)
		}
		if host == "localhost" {
			host = "127.0.0.1"
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return Listen{}, fmt.Errorf("--listen %q: the host must be an IP address", s)
		}
		if !ip.IsLoopback() && !allowRemote {
			return Listen{}, fmt.Errorf("--listen %q: %s is not a loopback address; agent app-server serves only this machine unless --allow-remote (and then set --ws-token-env)", s, host)
		}
		return Listen{Scheme: "ws", Addr: net.JoinHostPort(host, port)}, nil
	case "unix":
		if rest == "" {
			return Listen{}, fmt.Errorf("--listen %q: the socket's path is missing", s)
		}
		return Listen{Scheme: "unix", Addr: rest}, nil
	}
	return Listen{}, fmt.Errorf("--listen %q: scheme %q is not one of stdio, ws, unix", s, scheme)
}

// HTTPOptions configure [Server.Handler].
type HTTPOptions struct {
	// Token, when set, is the bearer token every WebSocket upgrade must
	// carry (Authorization: Bearer TOKEN).
	Token string
}

// Handler serves WebSocket connections at any path, and /readyz and
// /healthz. A request carrying an Origin header (a browser's) is refused
// with 403, as Codex refuses it; without the configured bearer token, 401.
func (s *Server) Handler(ctx context.Context, o HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	}
	mux.HandleFunc("/readyz", ok)
	mux.HandleFunc("/healthz", ok)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if o.Token != "" && !bearer(r, o.Token) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "agent app-server: a bearer token is required", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{})
		if err != nil {
			return // Accept answered
		}
		if err := s.Serve(ctx, WebSocket(c)); err != nil {
			s.log.Debug("app-server: connection", "err", err)
		}
		c.CloseNow()
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			http.Error(w, "agent app-server: requests with an Origin header are refused", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// bearer says whether r carries token as its bearer token.
func bearer(r *http.Request, token string) bool {
	h := r.Header.Get("Authorization")
	got, ok := strings.CutPrefix(h, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// ServeListener serves WebSocket connections on ln until ctx ends, then
// closes the server's threads. ready, when not nil, is called with the
// address once it listens.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	hs := &http.Server{Handler: s.Handler(ctx, o), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	err := hs.Serve(ln)
	s.Close()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ListenOn opens l's listener (ws or unix).
func ListenOn(l Listen) (net.Listener, error) {
	switch l.Scheme {
	case "ws":
		return net.Listen("tcp", l.Addr)
	case "unix":
		if st, err := os.Lstat(l.Addr); err == nil && st.Mode()&os.ModeSocket != 0 {
			// A stale socket of a process gone: remove it, unless one answers.
			if c, err := net.Dial("unix", l.Addr); err == nil {
				c.Close()
				return nil, fmt.Errorf("%s: another server is listening there", l.Addr)
			}
			os.Remove(l.Addr)
		}
		ln, err := net.Listen("unix", l.Addr)
		if err == nil {
			os.Chmod(l.Addr, 0o600)
		}
		return ln, err
	}
	return nil, fmt.Errorf("no listener for %s", l.Scheme)
}

// URL is the address clients connect to.
func (l Listen) URL(ln net.Listener) string {
	if l.Scheme == "unix" {
		return (&url.URL{Scheme: "unix", Path: l.Addr}).String()
	}
	return "ws://" + ln.Addr().String()
}
