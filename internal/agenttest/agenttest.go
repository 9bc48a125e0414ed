// Package agenttest runs the agent binary in end-to-end tests: it builds
// the binary users run, its companion programs and the stdio MCP test
// server once per test process, and writes an AGENT_HOME pointing agent
// at a fake model server with a fake key.
//
// Two test packages use it: cmd/agent (the commands, in process and
// through the binary) and cmd/agent/frontends (the chat under tmux and
// the app-server and ACP driven by their real clients). They are two
// packages so that each keeps its time limit on a busy machine: a test
// binary's run is timed as a whole.
package agenttest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcli/agent/internal/companion"
	"github.com/agentcli/agent/internal/mcptest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// FakeKey is the API key the configurations name (FAKE_KEY): tests check
// that it never leaks.
const FakeKey = "test-key-0000-LEAKCHECK-1234"

// Companions are the companion programs built beside agent.
var Companions = []string{companion.Otel, companion.Man, companion.Highlight}

// built says Binaries ran ([Remove] then removes what it built).
var built atomic.Bool

// buildDir is the test's package directory, where the go build runs: the
// working directory when the test process started. Not the working
// directory of the moment: a test may t.Chdir into a directory it then
// removes, and the background build ([Prebuild]) started meanwhile failed
// with "getwd: no such file or directory" (every end-to-end test with it,
// once, at a load of 20).
var buildDir, buildDirErr = os.Getwd()

// binaries builds, once per test process, what the end-to-end tests run,
// as make build does (static, CGO_ENABLED=0: the binary users run), in
// one go build: the packages are loaded once and the five links run side
// by side (five go builds in a row cost twice the CPU).
var binaries = sync.OnceValues(func() (string, error) {
	built.Store(true)
	if buildDirErr != nil {
		return "", buildDirErr
	}
	dir, err := os.MkdirTemp("", "agent-e2e-")
	if err != nil {
		return "", err
	}
	pkgs := []string{"github.com/agentcli/agent/cmd/agent"}
	for _, name := range Companions {
		pkgs = append(pkgs, "github.com/agentcli/agent/cmd/"+name)
	}
	cmd := goCommand(append([]string{"build", "-o", dir + string(filepath.Separator)}, append(pkgs, mcptest.Package)...)...)
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New("go build: " + err.Error() + "\n" + string(b))
	}
	return dir, nil
})

// goCommand is the go command with args, run in buildDir.
func goCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = buildDir
	return cmd
}

// Binaries returns the directory holding agent, its companions and
// mcptestserver, built on the first call.
func Binaries() (string, error) { return binaries() }

// Prebuild starts building the binaries in the background, for a run of
// a whole package: the in-process tests run meanwhile instead of the
// first end-to-end test waiting for the compiler. wait returns when the
// build is done.
func Prebuild() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = binaries() // the tests that need them report an error
	}()
	return func() { <-done }
}

// Remove removes what Binaries built, if it ran (TestMain calls it after
// the tests).
func Remove() {
	if built.Load() {
		if dir, err := binaries(); err == nil {
			os.RemoveAll(dir)
		}
	}
}

// Agent returns the built agent binary (built once, in the background
// for a full run; skipped in -short mode). A test that runs it calls
// t.Parallel: it mostly waits for processes, and the package's time
// limit has room only if those waits overlap.
func Agent(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	dir, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "agent")
}

// Cmd is bin run with args in a new directory, with AGENT_HOME home, a
// HOME of its own (no rc files of the machine), PATH and FAKE_KEY; its
// output is collected.
func Cmd(t *testing.T, bin, home string, args ...string) (*exec.Cmd, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // any directory works: no git repo needed
	cmd.Env = []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + FakeKey, "HOME=" + t.TempDir()}
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd, stdout, stderr
}

// WriteConfig is a new AGENT_HOME whose config.toml selects model
// "test-model" of provider "fake" at baseURL (key in FAKE_KEY), with
// extra (top-level TOML) before the provider's table.
func WriteConfig(t *testing.T, baseURL string, extra string) string {
	t.Helper()
	home := t.TempDir()
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n" + extra +
		"\n[model_providers.fake]\nbase_url = \"" + baseURL + "\"\nenv_key = \"FAKE_KEY\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// AppendConfig appends text to home's config.toml on a line of its own.
func AppendConfig(t *testing.T, home, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + text); err != nil {
		t.Fatal(err)
	}
}

// Parallel is how many parallel tests an end-to-end package runs at once
// unless -parallel says otherwise: its tests mostly wait for the
// processes they drive, so on two cores eight at a time overlap those
// waits (more, and a machine at a load of 20 times out tests that wait
// for Codex's TUI).
const Parallel = 8

// Main runs an end-to-end package's tests and returns the exit code:
// the binaries built in the background for a run of every test, at most
// [Parallel] parallel tests unless -parallel was given, what was built
// removed after, and the package failed if a goroutine outlives its
// tests.
func Main(m *testing.M) int {
	flag.Parse()
	wait := func() {}
	if flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		wait = Prebuild()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(Parallel))
	}
	code := m.Run()
	wait()
	Remove()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// EnvironWithHome is the process's environment with HOME set to home:
// the environment in-process runs give the model's commands, so that a
// login shell reads no rc file of the machine (a slow or stuck one, such
// as pyenv init waiting on a stale lock, makes every command wait).
func EnvironWithHome(home string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
	return append(env, "HOME="+home)
}
