package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// selfSigned makes a certificate for host, valid as its own root.
func selfSigned(t *testing.T, host string) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: host},
		DNSNames:              []string{host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// connectProxy is an HTTPS_PROXY that tunnels every CONNECT to target,
// whatever host was asked for, and counts the tunnels.
func connectProxy(t *testing.T, target string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var tunnels atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		tunnels.Add(1)
		// Hijack first and answer on the raw connection. The client may
		// send its ClientHello right behind the CONNECT: those bytes can
		// already sit in the server's buffered reader, so the tunnel
		// copies from it, not from the bare connection.
		down, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			up.Close()
			down.Close()
			return
		}
		go func() {
			_, _ = io.Copy(up, brw.Reader)
			up.Close()
		}()
		_, _ = io.Copy(down, up)
		down.Close()
	}))
	t.Cleanup(srv.Close)
	return srv, &tunnels
}

// TestE2EProxyAndCustomCA: a WebSocket attempt and its HTTPS fallback both
// go through HTTPS_PROXY and both trust ca_certificate (reference-client
// users hit WS-only proxy gaps).
func TestE2EProxyAndCustomCA(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	fake := rt.New(rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "x"), rt.Drop()), // over WS
		rt.Reply("r2", "m2", "through the proxy"),                       // over HTTPS after fallback
	}, rt.Options{OnUnexpected: func(msg string) { t.Errorf("%s", msg) }})
	t.Cleanup(fake.Close)
	const host = "model.test" // never resolved: the proxy routes it
	cert, pemBytes := selfSigned(t, host)
	upstream := httptest.NewUnstartedServer(fake.Handler())
	upstream.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	upstream.Config.ErrorLog = log.New(io.Discard, "", 0) // the no-CA run fails handshakes on purpose
	upstream.StartTLS()
	t.Cleanup(upstream.Close)
	proxy, tunnels := connectProxy(t, upstream.Listener.Addr().String())

	home := t.TempDir()
	caFile := filepath.Join(home, "corp-root.pem")
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(upstream.Listener.Addr().String())
	cfg := "model = \"m\"\nmodel_provider = \"corp\"\nca_certificate = \"" + caFile + "\"\n\n" +
		"[model_providers.corp]\nbase_url = \"https://" + host + ":" + port + "/v1\"\n" +
		"supports_websockets = true\nstream_max_retries = 0\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "hi")
	cmd.Env = append(cmd.Env, "HTTPS_PROXY="+proxy.URL)
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
	}
	if stdout.String() != "through the proxy\n" {
		t.Errorf("stdout = %q", stdout)
	}
	var got []string
	for _, r := range fake.Requests() {
		got = append(got, r.Method)
	}
	if strings.Join(got, ",") != "WS,POST" {
		t.Errorf("requests = %v; want a WS frame then a POST\n%s", got, stderr)
	}
	if n := tunnels.Load(); n < 2 {
		t.Errorf("%d proxy tunnels; want the WS handshake and the POST both proxied", n)
	}
	if !strings.Contains(stderr.String(), "Falling back from WebSockets to HTTPS transport") {
		t.Errorf("stderr lacks the fallback warning:\n%s", stderr)
	}

	// Without the CA the same setup fails on certificate verification.
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(strings.Replace(cfg, "ca_certificate", "# ca_certificate", 1)), 0o600)
	fake.Append(rt.Reply("r3", "m3", "never"))
	cmd, _, stderr = agentCmd(t, bin, home, "exec", "--no-auto-continue", "-c", "model_providers.corp.request_max_retries=0", "-c", "features.unbounded_connection_retries=false", "hi")
	cmd.Env = append(cmd.Env, "HTTPS_PROXY="+proxy.URL)
	if err := cmd.Run(); err == nil {
		t.Fatal("exec without the CA succeeded")
	}
	if !strings.Contains(stderr.String(), "certificate") {
		t.Errorf("stderr does not mention the certificate problem:\n%s", stderr)
	}
}
