// Command agent-otel is agent's telemetry exporter. agent starts it when
// config.toml's [otel] names an exporter, writes the events of the
// session to its standard input (internal/telemetry/wire) and closes it
// at exit; agent-otel sends them over OTLP and exits once they are
// flushed. It lives apart so that agent itself links no OpenTelemetry
// code: with no [otel], nothing of it starts.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.opentelemetry.io/otel"

	"github.com/agentcli/agent/internal/telemetry/otlp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Export failures (a collector down) are reported, never fatal.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { fmt.Fprintln(os.Stderr, "agent-otel:", err) }))
	if err := otlp.Run(ctx, os.Stdin, otlp.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "agent-otel:", err)
		os.Exit(1)
	}
}
