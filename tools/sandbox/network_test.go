//go:build linux

package sandbox_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentcli/agent/tools/sandbox"
)

// tcpListener listens on loopback and accepts (and closes) connections
// until the test ends. It returns the address.
func tcpListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback: %v", err)
	}
	acceptAll(t, ln)
	return ln.Addr().String()
}

// acceptAll accepts (and closes) the connections of ln until the test
// ends, then closes ln and waits for its accepting goroutine.
func acceptAll(t *testing.T, ln net.Listener) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
}

// dialFromSandbox runs this test binary under p to dial target ("tcp
// ADDR") and returns its output and error.
func dialFromSandbox(t *testing.T, p sandbox.Policy, target string) (string, *syscall.SysProcAttr, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t, p, exe)
	cmd.Env = append(os.Environ(), dialEnv+"="+target)
	out, err := cmd.CombinedOutput()
	return string(out), cmd.SysProcAttr, err
}

func TestNetwork(t *testing.T) {
	t.Parallel()
	addr := tcpListener(t)
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		p := sandbox.Policy{Workspace: t.TempDir()}
		out, _, err := dialFromSandbox(t, p, "tcp "+addr)
		mustFail(t, p, out, err)
		t.Logf("denied as: %s", strings.TrimSpace(out))
	})
	t.Run("on", func(t *testing.T) {
		t.Parallel()
		p := sandbox.Policy{Workspace: t.TempDir(), NetworkAccess: true}
		out, attr, err := dialFromSandbox(t, p, "tcp "+addr)
		mustSucceed(t, out, err)
		if out != "connected\n" {
			t.Errorf("output = %q; want connected", out)
		}
		if attr != nil && attr.Cloneflags&syscall.CLONE_NEWNET != 0 {
			t.Errorf("network on, yet a network namespace: %+v", attr)
		}
	})
	t.Run("udp off", func(t *testing.T) {
		t.Parallel()
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Skipf("no loopback UDP: %v", err)
		}
		defer pc.Close()
		p := sandbox.Policy{Workspace: t.TempDir()}
		out, attr, err := dialFromSandbox(t, p, "udp "+pc.LocalAddr().String())
		if attr == nil || attr.Cloneflags&syscall.CLONE_NEWNET == 0 {
			t.Skip("no network namespace: Landlock does not restrict UDP")
		}
		mustFail(t, p, out, err)
	})
}

func TestNetworkOffNeedsNoFallback(t *testing.T) {
	t.Parallel()
	// Where the kernel allows namespaces, network-off policies never fall
	// back silently: Command either builds a network namespace or
	// refuses.
	requireLandlock(t)
	_, err := sandbox.Command(t.Context(), sandbox.Policy{Workspace: t.TempDir()}, "true")
	if err != nil && !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("Command = %v", err)
	}
}

// unixListener listens on the UNIX socket addr (a path, or @name for an
// abstract one) and accepts connections until the test ends.
func unixListener(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	acceptAll(t, ln)
}

// TestNetworkUnixSockets checks that with the network off no UNIX socket
// outside the sandbox can be reached, as /var/run/docker.sock could be,
// and that with the network on they all can.
func TestNetworkUnixSockets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // outside every writable root of strict
	path := filepath.Join(dir, "s.sock")
	unixListener(t, path)
	abstract := "@agent-sandbox-test-" + strconv.Itoa(os.Getpid())
	unixListener(t, abstract)
	dgram := filepath.Join(dir, "d.sock")
	pc, err := net.ListenPacket("unixgram", dgram)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	t.Run("own socketpair", func(t *testing.T) {
		t.Parallel()
		// Stream socketpairs between the command's own processes still
		// work with the network off.
		p := sandbox.Policy{Workspace: t.TempDir()}
		out, _, err := dialFromSandbox(t, p, "socketpair-stream -")
		mustSucceed(t, out, err)
	})
	for _, target := range []string{"unix " + path, "unix " + abstract, "unixgram " + dgram, "socketpair-dgram " + dgram} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			for _, mode := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
				p := strict(t.TempDir())
				p.Mode = mode
				out, _, err := dialFromSandbox(t, p, target)
				mustFail(t, p, out, err)
				t.Logf("%s, network off: %s", mode, strings.TrimSpace(out))

				p.NetworkAccess = true
				out, _, err = dialFromSandbox(t, p, target)
				mustSucceed(t, out, err)
				if out != "connected\n" {
					t.Errorf("%s, network on: output = %q; want connected", mode, out)
				}
			}
		})
	}
}
