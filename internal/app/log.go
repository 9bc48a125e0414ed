package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// demoPace slows the demo's streaming down when someone is watching.
func demoPace(env Env) time.Duration {
	if env.StderrTTY {
		return 15 * time.Millisecond
	}
	return 0
}

// openLog opens $AGENT_HOME/log/agent.log for structured logs. The level
// comes from --log-level, else $AGENT_LOG, else info. A log that cannot be
// opened is reported once and replaced by a discarding logger: logging must
// never stop a turn.
func openLog(home, flagLevel string, env Env) (*slog.Logger, func()) {
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
