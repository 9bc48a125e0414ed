package main

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestUntrustedCertificateFailsAtOnce: a server whose certificate no
// trusted root signs (a corporate proxy's CA, a self-signed server) is
// not a transient failure: one connection, no retry, and a message naming
// the three ways to trust its CA. CODEX_CA_CERTIFICATE, as the reference
// client reads it, is honoured.
func TestUntrustedCertificateFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{"sse", "ws"} {
		t.Run(tr, func(t *testing.T) {
			fake := rt.New(rt.Script{rt.Reply("r1", "m1", "trusted now")}, rt.Options{OnUnexpected: func(msg string) { t.Errorf("%s", msg) }})
			t.Cleanup(fake.Close)
			cert, pemBytes := selfSigned(t, "localhost")
			srv := httptest.NewUnstartedServer(fake.Handler())
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			var conns atomic.Int32
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
			cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"https://localhost:" + port + "/v1\"\n" +
				"env_key = \"FAKE_KEY\"\nsupports_websockets = " + map[string]string{"sse": "false", "ws": "true"}[tr] + "\n"
			r := runCLI(t, nil, runOpts{config: cfg}, "exec", "hi")
			if r.code != exitcode.Failed || len(r.sleeps) != 0 || conns.Load() != 1 {
				t.Errorf("exit %d after %d connections and waits %v; want exit %d after one connection, no retry\n%s",
					r.code, conns.Load(), r.sleeps, exitcode.Failed, r.stderr)
			}
			for _, w := range []string{"certificate", "ca_certificate", "CODEX_CA_CERTIFICATE", "SSL_CERT_FILE"} {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not name %s:\n%s", w, r.stderr)
				}
			}

			ca := filepath.Join(t.TempDir(), "ca.pem")
			if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
				t.Fatal(err)
			}
			r = runCLI(t, nil, runOpts{config: cfg, env: map[string]string{"CODEX_CA_CERTIFICATE": ca}}, "exec", "hi")
			if r.code != 0 || r.stdout != "trusted now\n" {
				t.Errorf("with CODEX_CA_CERTIFICATE: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestPrettyPrintedErrorBodyShowsItsMessage: a 404 whose body is
// pretty-printed JSON of a shape of its own (Ollama's) shows its message,
// not "404 {".
func TestPrettyPrintedErrorBodyShowsItsMessage(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.StatusBody(404, "{\n  \"error\": \"model 'x' not found, try pulling it first\"\n}", "Content-Type", "application/json")})
	r := runCLI(t, srv, runOpts{}, "exec", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "model 'x' not found, try pulling it first") || strings.Contains(r.stderr, "404 {") {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	srv = rt.NewServer(t, rt.Script{rt.StatusBody(500, "{\n  \"status\": 500,\n  \"title\": \"Internal failure in the gateway\"\n}")})
	r = runCLI(t, srv, runOpts{config: "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n[auto_continue]\nenabled = false\n"}, "exec", "hi")
	if !strings.Contains(r.stderr, "Internal failure in the gateway") {
		t.Errorf("a title-shaped body: stderr:\n%s", r.stderr)
	}
}
