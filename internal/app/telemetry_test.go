package app

import (
	"strings"
	"testing"
)

// TestTelemetryWithoutExporter: no [otel], nothing starts; an exporter
// configured but agent-otel nowhere to be found is one notice naming what
// is missing and where it looked, and the session runs without telemetry.
func TestTelemetryWithoutExporter(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	a, _ := testApp(t, "model_provider = \"demo\"\n", true)
	if a.telemetry != nil || a.opts.Observer != nil || a.clientOpts.Observer != nil {
		t.Error("telemetry without [otel]")
	}
	a, _ = testApp(t, "model_provider = \"demo\"\n[otel]\nexporter = { otlp-http = { endpoint = \"http://127.0.0.1:1/v1/logs\", protocol = \"binary\" } }\n", true)
	if a.telemetry != nil || a.opts.Observer != nil {
		t.Error("telemetry started without its exporter")
	}
	var found bool
	for _, n := range a.Notices() {
		found = found || strings.HasPrefix(n, "[otel]: no telemetry is exported: agent-otel was not found beside ")
	}
	if !found {
		t.Errorf("notices %q lack the missing exporter", a.Notices())
	}
}
