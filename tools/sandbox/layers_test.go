//go:build linux

package sandbox

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// dialEnv is the variable the package's TestMain (main_test.go) reads to
// act as a network client.
const dialEnv = "SANDBOX_TEST_DIAL"

// loopbackTCP returns the address of a listener that accepts nothing; a
// connect succeeds through the backlog.
func loopbackTCP(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// helperDial runs this test binary through the helper with spec s and
// attr to dial addr over TCP, returning the output and whether it
// connected.
func helperDial(t *testing.T, s spec, need nsNeed, addr string) (string, bool) {
	t.Helper()
	attr, err := namespaces(t.Context(), need)
	if err != nil {
		t.Skipf("namespaces: %v", err)
	}
	if s.HostNS, err = hostNamespaces(need); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), selfExe, helperArg, string(js), exe)
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Setsid = true
	cmd.SysProcAttr = attr
	cmd.Env = append(os.Environ(), dialEnv+"=tcp "+addr)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// TestNetworkLayers checks each network layer on its own: Landlock's TCP
// rules without a namespace, and the namespace without Landlock.
func TestNetworkLayers(t *testing.T) {
	t.Parallel()
	addr := loopbackTCP(t)
	if out, ok := helperDial(t, spec{}, nsNeed{}, addr); !ok {
		t.Fatalf("unrestricted dial failed: %s", out)
	}
	t.Run("landlock only", func(t *testing.T) {
		t.Parallel()
		abi, err := Available()
		if err != nil || abi < 4 {
			t.Skipf("Landlock cannot restrict TCP here (ABI %d, %v); needs ABI 4", abi, err)
		}
		out, ok := helperDial(t, spec{ABI: abi, NoNetwork: true}, nsNeed{}, addr)
		if ok || !strings.Contains(out, "permission denied") {
			t.Errorf("dial under Landlock = %v, %q; want permission denied", ok, out)
		}
	})
	t.Run("namespace only", func(t *testing.T) {
		t.Parallel()
		out, ok := helperDial(t, spec{NoNetwork: true}, nsNeed{net: true}, addr)
		if ok || !strings.Contains(out, "network is unreachable") {
			t.Errorf("dial in a network namespace = %v, %q; want network is unreachable", ok, out)
		}
	})
}
