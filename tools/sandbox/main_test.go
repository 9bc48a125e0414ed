//go:build linux

package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/creack/pty"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/agentcli/agent/tools/sandbox"
)

// dialEnv makes the test binary, started inside a sandbox, dial the
// "NETWORK ADDRESS" it holds and exit 0 on success, 1 on failure.
const dialEnv = "SANDBOX_TEST_DIAL"

// Variables that make the test binary, started inside (or around) a
// sandbox, play a part instead of running tests; see TestMain.
const (
	injectEnv = "SANDBOX_TEST_INJECT"   // try TIOCSTI and TIOCLINUX
	agentEnv  = "SANDBOX_TEST_AGENT"    // MODE: be agent on a terminal
	xattrEnv  = "SANDBOX_TEST_SETXATTR" // PATH: set an extended attribute
	ttyEnv    = "SANDBOX_TEST_OPEN_TTY" // PATH: open agent's terminal by path
	ipcEnv    = "SANDBOX_TEST_IPC"      // "SHMKEY MSGKEY KEYID": reach the host's IPC and keys
	guardEnv  = "SANDBOX_TEST_GUARDED"  // SCRIPT: be agent running sh -c SCRIPT unsandboxed
)

// TestMain lets this test binary serve as the sandbox helper and as a
// network client, terminal attacker, agent or xattr setter inside
// sandboxes, then fails the package if a goroutine outlives its test.
// The parts exit with syscall.Exit: os.Exit would sleep a second under
// -race.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if target := os.Getenv(dialEnv); target != "" {
		syscall.Exit(dial(target))
	}
	if os.Getenv(injectEnv) != "" {
		syscall.Exit(inject())
	}
	if path := os.Getenv(ttyEnv); path != "" {
		syscall.Exit(openTerminal(path))
	}
	if ids := os.Getenv(ipcEnv); ids != "" {
		syscall.Exit(reachIPC(ids))
	}
	if script := os.Getenv(guardEnv); script != "" {
		syscall.Exit(runUnsandboxed(script))
	}
	if mode := os.Getenv(agentEnv); mode != "" {
		syscall.Exit(actAsAgent(sandbox.Mode(mode)))
	}
	if path := os.Getenv(xattrEnv); path != "" {
		if err := unix.Setxattr(path, "user.agent-test", []byte("1"), 0); err != nil {
			fmt.Fprintln(os.Stderr, "setxattr:", err)
			syscall.Exit(1)
		}
		syscall.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// injected is the line the terminal attacker pushes into the terminal's
// input, as the attack on agent did.
const injected = "touch /tmp/agent-test-PWNED\n"

// inject tries to push [injected] into the controlling terminal and into
// standard input with TIOCSTI, also with the ioctl request's high bits
// set (the kernel ignores them; a careless filter would not), and
// TIOCLINUX on standard input. It prints one line per attempt and exits
// 0 when every one failed, 3 otherwise.
func inject() int {
	code := 0
	try := func(what string, fd int, req uintptr, b byte) {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&b)))
		if e == 0 {
			fmt.Printf("%s: injected\n", what)
			code = 3
			return
		}
		fmt.Printf("%s: %v\n", what, e)
	}
	sid, _ := unix.Getsid(0)
	fmt.Printf("session leader: %v\n", sid == unix.Getpid())
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		fmt.Printf("open /dev/tty: %v\n", err)
	} else {
		for i := range len(injected) {
			try("TIOCSTI /dev/tty", int(f.Fd()), unix.TIOCSTI, injected[i])
		}
		f.Close()
	}
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		for i := range len(injected) {
			try("TIOCSTI stdin", 0, unix.TIOCSTI, injected[i])
		}
		high := uint64(1) << 32 // dropped by the kernel, kept by a 64-bit compare
		try("TIOCSTI|1<<32 stdin", 0, uintptr(high|unix.TIOCSTI), 'x')
		try("TIOCLINUX stdin", 0, unix.TIOCLINUX, 0)
	}
	return code
}

// openTerminal tries to open agent's terminal at path by name, for reading
// (the user's keystrokes) and for writing (escape sequences past agent's
// sanitiser), and to open a new pseudo-terminal of its own, which
// commands such as script(1) need. It prints one line per attempt and
// exits 0.
func openTerminal(path string) int {
	for _, m := range []struct {
		name string
		flag int
	}{{"read", os.O_RDONLY}, {"write", os.O_WRONLY}} {
		f, err := os.OpenFile(path, m.flag|unix.O_NOCTTY, 0)
		if err != nil {
			fmt.Printf("open terminal for %s: refused\n", m.name)
			continue
		}
		f.Close()
		fmt.Printf("open terminal for %s: opened\n", m.name)
	}
	master, slave, err := pty.Open()
	if err != nil {
		fmt.Printf("new pty: %v\n", err)
		return 0
	}
	_, err = slave.WriteString("x")
	master.Close()
	slave.Close()
	fmt.Printf("new pty: %v\n", err)
	return 0
}

// reachIPC tries to reach the host's SysV shared memory segment and
// message queue by their keys and to read a key of the host's keyring by
// its id, as given in ids, and to add a key of its own. It prints one line
// per attempt ("shm: ok" or "shm: ERROR") and exits 0.
func reachIPC(ids string) int {
	var shmKey, msgKey, keyID int
	if _, err := fmt.Sscan(ids, &shmKey, &msgKey, &keyID); err != nil {
		fmt.Println(err)
		return 1
	}
	report := func(what string, err error) {
		if err == nil {
			fmt.Printf("%s: ok\n", what)
			return
		}
		fmt.Printf("%s: %v\n", what, err)
	}
	_, err := unix.SysvShmGet(shmKey, 0, 0)
	report("shm", err)
	_, _, e := unix.Syscall(unix.SYS_MSGGET, uintptr(msgKey), 0, 0)
	report("msg", errnoErr(e))
	buf := make([]byte, 64)
	_, err = unix.KeyctlBuffer(unix.KEYCTL_READ, keyID, buf, 0)
	report("keyctl read", err)
	_, err = unix.AddKey("user", "agent-test-sandboxed", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
	report("add_key", err)
	_, err = unix.RequestKey("user", "agent-test-none", "", unix.KEY_SPEC_PROCESS_KEYRING)
	report("request_key", err)
	return 0
}

// errnoErr is e as an error, nil for 0.
func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// actAsAgent is agent on its terminal (standard input, its controlling
// terminal): it runs the terminal attacker under mode in a workspace-less
// temporary directory, then a command printing in colour, and reports how
// many bytes of input the terminal then holds for the user's shell.
func actAsAgent(mode sandbox.Mode) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	tty, err := os.Readlink("/proc/self/fd/0")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	p := sandbox.Policy{Mode: mode, Workspace: "/"}
	for _, c := range []struct {
		env  string
		argv []string
	}{
		{injectEnv + "=1", []string{exe}},
		{ttyEnv + "=" + tty, []string{exe}},
		{"", []string{"printf", "\\033[31mred\\033[0m ok\\n"}},
	} {
		cmd, err := sandbox.Command(context.Background(), p, c.argv[0], c.argv[1:]...)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.Env = append(os.Environ(), c.env)
		err = cmd.Run()
		fmt.Printf("exit: %v\n", err)
	}
	n, err := unix.IoctlGetInt(0, unix.TIOCINQ)
	fmt.Printf("pending input: %d %v\n", n, err)
	// Leave nothing behind for whoever reads the terminal next.
	unix.IoctlSetInt(0, unix.TCFLSH, unix.TCIFLUSH)
	return 0
}

// dial connects to target ("tcp 127.0.0.1:80", "unix /path", "unix
// @abstract") and reports the outcome. "socketpair-dgram PATH" sends a
// datagram to PATH from one end of a socketpair instead, and
// "socketpair-stream -" passes a byte through a stream socketpair.
func dial(target string) int {
	network, addr, _ := strings.Cut(target, " ")
	if network == "socketpair-stream" {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		buf := make([]byte, 1)
		if err == nil {
			_, err = unix.Write(fds[0], []byte("x"))
		}
		if err == nil {
			_, err = unix.Read(fds[1], buf)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "socketpair-stream:", err)
			return 1
		}
		fmt.Println("connected")
		return 0
	}
	if network == "socketpair-dgram" {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			err = unix.Sendto(fds[0], []byte("x"), 0, &unix.SockaddrUnix{Name: addr})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "socketpair-dgram:", err)
			return 1
		}
		fmt.Println("connected")
		return 0
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err == nil && network == "udp" {
		_, err = c.Write([]byte("x"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c.Close()
	fmt.Println("connected")
	return 0
}

// requireLandlock skips the test when the kernel has no Landlock, saying
// why, and returns the ABI version otherwise.
func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := sandbox.Available()
	if err != nil {
		t.Skipf("no Landlock on this kernel: %v", err)
	}
	return abi
}

// command returns a sandboxed command for p, skipping the test (with the
// kernel's reason) when Landlock or a needed namespace is unavailable.
func command(t *testing.T, p sandbox.Policy, name string, args ...string) *exec.Cmd {
	t.Helper()
	requireLandlock(t)
	cmd, err := sandbox.Command(t.Context(), p, name, args...)
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the kernel cannot enforce this policy: %v", err)
	}
	if err != nil {
		t.Fatalf("Command(%+v) = %v", p, err)
	}
	return cmd
}

// sh runs script with sh -c under p and returns its combined output and
// the error from Run.
func sh(t *testing.T, p sandbox.Policy, script string) (string, error) {
	t.Helper()
	out, err := command(t, p, "sh", "-c", script).CombinedOutput()
	return string(out), err
}

// mustFail checks that a command failed because the sandbox denied it.
func mustFail(t *testing.T, p sandbox.Policy, out string, err error) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("command succeeded or did not run (err %v); want a denial; output:\n%s", err, out)
	}
	if !sandbox.Denied(p, err, []byte(out)) {
		t.Errorf("Denied(%v, %q) = false; want true", err, out)
	}
}

// mustSucceed checks that a command exited 0.
func mustSucceed(t *testing.T, out string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("command failed: %v; output:\n%s", err, out)
	}
}

// mustNotExist checks that the sandbox left no file at path.
func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(%s) = %v; want it absent", path, err)
	}
}

// mustContain checks that the file at path holds want.
func mustContain(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s = %q; want %q", path, b, want)
	}
}
