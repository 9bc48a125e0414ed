package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/mantree"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// doctorCheck is one line of agent doctor --json's report.
type doctorCheck struct {
	Name, Status, Detail, Fix string
}

// TestDoctorProxyBadCA: through HTTPS_PROXY, a server whose certificate
// ca_certificate does not sign fails the https check with the fix. It runs
// the binary: the proxy comes from the process environment.
func TestDoctorProxyBadCA(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	fake := rt.New(rt.Script{}, rt.Options{})
	t.Cleanup(fake.Close)
	const host = "model.test"
	cert, _ := selfSigned(t, host)
	_, otherPEM := selfSigned(t, host) // a CA that did not sign cert
	upstream := httptest.NewUnstartedServer(fake.Handler())
	upstream.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	upstream.Config.ErrorLog = log.New(io.Discard, "", 0)
	upstream.StartTLS()
	t.Cleanup(upstream.Close)
	proxy, tunnels := connectProxy(t, upstream.Listener.Addr().String())
	home := t.TempDir()
	ca := filepath.Join(home, "wrong-root.pem")
	if err := os.WriteFile(ca, otherPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(upstream.Listener.Addr().String())
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\nca_certificate = " + agenttest.QuoteTOML(ca) + "\n\n[model_providers.fake]\nbase_url = \"https://" + host + ":" + port + "/v1\"\nenv_key = \"FAKE_KEY\"\nsupports_websockets = true\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "doctor", "--json")
	cmd.Env = append(os.Environ(), "AGENT_HOME="+home, "FAKE_KEY="+fakeKey, "HTTPS_PROXY="+proxy.URL, "NO_PROXY=", "no_proxy=")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Failed {
		t.Fatalf("doctor: %v, want exit %d:\n%s", err, exitcode.Failed, out)
	}
	var rep struct{ Checks []doctorCheck }
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var h doctorCheck
	for _, c := range rep.Checks {
		if c.Name == "https" {
			h = c
		}
	}
	if h.Status != "failed" || !strings.Contains(h.Detail, "through proxy "+proxy.URL) ||
		!strings.Contains(h.Fix, "ca_certificate = "+ca+" does not sign") {
		t.Errorf("https %+v", h)
	}
	if tunnels.Load() == 0 {
		t.Error("the check did not go through the proxy")
	}
}

// TestE2EDoctorCompanions: agent doctor looks for the companion programs
// beside the executable it runs from: agent-man built beside agent is
// found there.
func TestE2EDoctorCompanions(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if err := agenttest.CompanionBinary(mantree.ProgramName); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := agentCmd(t, bin, t.TempDir(), "doctor", "--offline", "--json", "-c", "model_provider=demo")
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
	err := cmd.Run()
	var rep struct{ Checks []doctorCheck }
	if jerr := json.Unmarshal([]byte(stdout.String()), &rep); jerr != nil {
		t.Fatalf("doctor: %v, %v: %s\nstderr: %s", err, jerr, stdout, stderr)
	}
	var man doctorCheck
	for _, c := range rep.Checks {
		if c.Name == mantree.ProgramName {
			man = c
		}
	}
	if want := filepath.Join(filepath.Dir(bin), mantree.ProgramName) + " ("; man.Status != "ok" || !strings.HasPrefix(man.Detail, want) {
		t.Errorf("agent-man check %+v; want ok, %q", man, want)
	}
}
