package app

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/telemetry"
)

// telemetryFlush bounds the exporter's last sends at exit.
const telemetryFlush = 5 * time.Second

// startTelemetry starts [otel]'s exporter when config names one: every
// session and model client of the app reports to it. Nothing starts
// without one. An exporter that cannot start is a notice, never an
// error: telemetry does not stop a session.
func (a *App) startTelemetry(ctx context.Context, o Options, creds credentials) {
	ot := a.cfg.Otel
	if !ot.On() {
		return
	}
	a.secrets.Add(telemetry.Secrets(ot)...)
	self, _ := os.Executable()
	path, err := telemetry.FindExporter(self)
	if err == nil {
		meta := telemetry.Meta{AppVersion: o.Version, AuthMode: authMode(creds),
			TerminalType: terminalType(o.Env.Getenv), Model: a.cfg.Model}
		a.telemetry, err = telemetry.Start(ctx, path, telemetry.SettingsOf(ot, o.Originator, o.Version),
			telemetry.Options{Meta: meta, LogUserPrompt: ot.LogUserPrompt, Secrets: a.secrets, Now: o.Env.Now},
			logLines{a.logger})
	}
	if err != nil {
		a.notices = append(a.notices, "[otel]: no telemetry is exported: "+a.secrets.String(err.Error()))
		return
	}
	t := a.telemetry
	a.closers = append(a.closers, func() {
		ctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
		defer cancel()
		if err := t.Close(ctx); err != nil {
			a.logger.Warn("otel exporter", "err", a.secrets.String(err.Error()))
		}
	})
}

// conversationStarts reports session t's start to the exporter through
// its conversation's telemetry tel.
func (a *App) conversationStarts(t *Thread, tel *telemetry.Telemetry) {
	cfg := a.cfg
	var servers []string
	for name, s := range cfg.MCPServers {
		if s.Enabled {
			servers = append(servers, name)
		}
	}
	slices.Sort(servers)
	tel.ConversationStarts(telemetry.ConversationStart{Provider: a.clientOpts.Provider.ID,
		ReasoningEffort: cfg.ModelReasoningEffort, ReasoningSummary: cfg.ModelReasoningSummary,
		ContextWindow: cfg.ContextWindow(cfg.Model), AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		ApprovalPolicy: t.ws.Policy, SandboxPolicy: string(t.ws.Sandbox.Mode), MCPServers: servers, Profile: cfg.Profile})
}

// authMode is Codex's auth_mode attribute: ChatGPT for a ChatGPT login,
// else ApiKey; "" without credentials.
func authMode(creds credentials) string {
	if m, ok := creds.auth.(*auth.Manager); ok && m.File().Tokens != nil {
		return "ChatGPT"
	}
	if creds.auth != nil {
		return "ApiKey"
	}
	return ""
}

// terminalType is Codex's terminal.type: TERM_PROGRAM, else TERM.
func terminalType(getenv func(string) string) string {
	if t := getenv("TERM_PROGRAM"); t != "" {
		return t
	}
	return getenv("TERM")
}

// logLines writes the exporter's messages (an unreachable collector) to
// agent's log, one entry per write.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		l.log.Warn("otel exporter", "msg", s)
	}
	return len(p), nil
}
