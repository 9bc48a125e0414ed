package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/companion"
	"github.com/agentcli/agent/internal/telemetry/wire"
)

// ExporterName is the exporter program's name: agent-otel, installed
// beside agent (make install does).
const ExporterName = companion.Otel

// FindExporter returns the exporter program: ExporterName in the
// directory of self (agent's own executable), else on PATH.
func FindExporter(self string) (string, error) {
	return companion.Find(self, ExporterName)
}

// Start starts the exporter program at path with settings s and returns
// the Telemetry writing to it. The program outlives ctx: it is ended by
// [Telemetry.Close], which gives it until Close's ctx ends to send what
// it holds. Its messages (an unreachable collector) go to stderr, masked.
func Start(ctx context.Context, path string, s wire.Settings, opts Options, stderr io.Writer) (*Telemetry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", ExporterName, err)
	}
	var w io.Writer = stderr
	var flush func() error
	if opts.Secrets != nil && stderr != nil {
		rw := opts.Secrets.Writer(stderr)
		w, flush = rw, rw.Flush
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", ExporterName, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := func(ctx context.Context) error {
		err := in.Close()
		select {
		case werr := <-done:
			err = errors.Join(err, exited(werr))
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-done
			err = errors.Join(err, fmt.Errorf("%s did not finish sending in time: %w", ExporterName, ctx.Err()))
		}
		if flush != nil {
			err = errors.Join(err, flush())
		}
		return err
	}
	t, err := New(in, s, opts, stop)
	if err != nil {
		return nil, errors.Join(err, stop(context.WithoutCancel(ctx)))
	}
	return t, nil
}

// exited names a failed exit of the exporter.
func exited(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", ExporterName, err)
}

// SettingsOf is the exporter's settings for [otel] o, the program
// named service (Codex's service.name: agent_cli, agent_exec) at version.
func SettingsOf(o config.Otel, service, version string) wire.Settings {
	ex := func(e config.OtelExporter) wire.Exporter {
		if !e.On() {
			return wire.Exporter{}
		}
		w := wire.Exporter{Kind: e.Kind, Endpoint: e.Endpoint, Headers: e.Headers}
		if t := e.TLS; t != (config.OtelTLS{}) {
			w.TLS = &wire.TLS{CA: t.CACertificate, Cert: t.ClientCertificate, Key: t.ClientPrivateKey}
		}
		return w
	}
	return wire.Settings{Service: service, Version: version, Environment: o.Environment,
		Logs: ex(o.Exporter), Traces: ex(o.TraceExporter)}
}

// Secrets are the values of o's headers, for the process's mask set.
func Secrets(o config.Otel) []string {
	var out []string
	for _, e := range []config.OtelExporter{o.Exporter, o.TraceExporter} {
		for _, v := range e.Headers {
			out = append(out, v)
		}
	}
	return out
}
