// Package setup is what every command derives from the process before,
// or without, an engine: the environment ([Env]) and the global flags
// ([Flags]), config loading, the log level, the credentials and the
// credential store, the secrets learnt from the environment, the CA file,
// the machine's retry gate, the MCP servers and hook sources configured.
// internal/app builds its process scope on it; commands that need no
// session (login, proxy, doctor, hooks) use it alone.
package setup

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/retry"
)

// Env is what the app takes from the process, so tests can build it with
// fakes.
type Env struct {
	Getenv func(string) string
	// Environ lists the whole environment, as os.Environ; nil means
	// os.Environ. Commands the model runs get it filtered through
	// [shell_environment_policy].
	Environ func() []string
	// Stderr receives warnings and notices; StderrTTY says it is a
	// terminal (the demo then streams at a visible pace).
	Stderr    io.Writer
	StderrTTY bool
	// Keyring replaces the OS keyring of cli_auth_credentials_store
	// (tests); nil is the OS keyring.
	Keyring auth.Keyring
	// Sleep and Rand replace the real clock and jitter source (tests).
	Sleep retry.Sleeper
	Rand  func() float64
	// Now reads the wall clock: sessions are dated by it, and the
	// machine-wide retry gate measures cooldowns on it; it must agree with
	// Sleep. A test that replaces Sleep but not Now gets a retry gate of
	// its own process only. nil is the real clock.
	Now func() time.Time
	// Secrets are the credentials this process holds, masked in
	// everything it logs and records; nil: a new set.
	Secrets *redact.Set
}

// Time reads the clock Env.Now gives, else the real one.
func (e Env) Time() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Environment returns e.Environ(), or os.Environ() if it is nil.
func (e Env) Environment() []string {
	if e.Environ == nil {
		return os.Environ()
	}
	return e.Environ()
}

// Flags are the global flags every command shares.
type Flags struct {
	Model     string   // -m
	Profile   string   // -p
	Overrides []string // -c key=value
	LogLevel  string   // --log-level
	Transport string   // --transport
	// IgnoreUserConfig is exec's --ignore-user-config: the home's
	// config.toml (and profile files) are not read; credentials still are.
	IgnoreUserConfig bool
	// BypassHookTrust is --dangerously-bypass-hook-trust: enabled hooks
	// run whether or not their hash was trusted.
	BypassHookTrust bool
}

// ConfigOptions are the options config.Load gets for home under f.
func (f Flags) ConfigOptions(home string) config.Options {
	o := config.Options{Home: home, Profile: f.Profile, Overrides: f.Overrides, Model: f.Model}
	if f.IgnoreUserConfig {
		o.Home = ""
	}
	return o
}

// LoadConfig loads the configuration of home with the global flags and
// prints its warnings (the Codex keys agent ignores) on stderr, one line
// each. Its error is a usage error.
func LoadConfig(stderr io.Writer, home string, f Flags) (config.Config, error) {
	cfg, err := config.Load(f.ConfigOptions(home))
	if err != nil {
		return config.Config{}, &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "agent: warning: %s\n", w)
	}
	return cfg, nil
}

// LogLevel is the level of agent's logs (the log file, agent proxy's
// request lines on stderr): --log-level, else $AGENT_LOG, else info; a
// name that is none is said on env.Stderr and info used.
func LogLevel(env Env, flagLevel string) slog.Level {
	level := slog.LevelInfo
	name := flagLevel
	if name == "" {
		name = env.Getenv("AGENT_LOG")
	}
	if name != "" && level.UnmarshalText([]byte(strings.ToLower(name))) != nil {
		fmt.Fprintf(env.Stderr, "agent: ignoring log level %q (want debug, info, warn or error)\n", name)
		return slog.LevelInfo
	}
	return level
}

// OpenLog opens $AGENT_HOME/log/agent.log for structured logs. The level
// comes from --log-level, else $AGENT_LOG, else info. A log that cannot be
// opened is reported once and replaced by a discarding logger: logging must
// never stop a turn.
func OpenLog(home, flagLevel string, env Env) (*slog.Logger, func()) {
	level := LogLevel(env, flagLevel)
	dir := filepath.Join(home, "log")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fmt.Fprintf(env.Stderr, "agent: logging disabled: %v\n", err)
		return slog.New(slog.DiscardHandler), func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, "agent.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agent: logging disabled: %v\n", err)
		return slog.New(slog.DiscardHandler), func() {}
	}
	w := env.Secrets.Writer(f) // servers' error bodies and commands' output are logged
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), func() {
		w.Flush()
		f.Close()
	}
}
