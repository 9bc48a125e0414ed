package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

// TestOtel loads Codex's [otel] forms: none by default, an OTLP/HTTP log
// exporter with headers, a gRPC trace exporter, log_user_prompt.
func TestOtel(t *testing.T) {
	c := mustLoad(t, "", config.Options{})
	if c.Otel.On() || c.Otel.Environment != "dev" {
		t.Errorf("default [otel] = %+v, want nothing exported, environment dev", c.Otel)
	}
	c = mustLoad(t, `
[otel]
environment = "staging"
log_user_prompt = true
exporter = { otlp-http = { endpoint = "https://otel.example.com/v1/logs", protocol = "binary", headers = { "x-otlp-api-key" = "k-123456789" } } }
trace_exporter = { otlp-grpc = { endpoint = "http://localhost:4317" } }
`, config.Options{})
	want := config.Otel{Environment: "staging", LogUserPrompt: true,
		Exporter:      config.OtelExporter{Kind: "otlp-http", Endpoint: "https://otel.example.com/v1/logs", Headers: map[string]string{"x-otlp-api-key": "k-123456789"}},
		TraceExporter: config.OtelExporter{Kind: "otlp-grpc", Endpoint: "http://localhost:4317"}}
	if diff := cmp.Diff(want, c.Otel); diff != "" {
		t.Errorf("[otel] (-want +got):\n%s", diff)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
	// The table form of Codex's example config, and -c.
	c = mustLoad(t, "[otel.exporter.\"otlp-grpc\"]\nendpoint = \"http://h:4317\"\n", config.Options{Overrides: []string{`otel.exporter="none"`}})
	if c.Otel.On() {
		t.Errorf("-c otel.exporter=none left %+v", c.Otel)
	}
}

// TestOtelWarnsAndRefuses: what agent does not implement, and keys it
// does not know, warn by name; a malformed exporter is an error naming
// the key.
func TestOtelWarnsAndRefuses(t *testing.T) {
	c := mustLoad(t, `
[otel]
metrics_exporter = "statsig"
log_user_promt = true
exporter = { otlp-http = { endpoint = "http://h/v1/logs", protocol = "json", tls = { ca-certificate = "ca.pem", pin = "x" }, timeout = 3 } }
`, config.Options{})
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"otel.metrics_exporter: Codex setting that agent ignores",
		`otel.log_user_promt: unknown [otel] key; ignored (did you mean "log_user_prompt"?)`,
		`otel.exporter.otlp-http.protocol: agent's OTLP/HTTP exporter sends protobuf ("binary"); "json" is not supported, binary is sent`,
		"otel.exporter.otlp-http.timeout: unknown key of the exporter; ignored (expected one of: endpoint, headers, protocol, tls)",
		`otel.exporter.otlp-http.tls.pin: unknown key of tls; ignored (expected one of: ca-certificate, client-certificate, client-private-key)`,
	}
	if len(got) != len(want) {
		t.Fatalf("warnings = %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasSuffix(got[i], want[i]) {
			t.Errorf("warning %d = %q, want ...%s", i, got[i], want[i])
		}
	}
	for _, tc := range []struct{ file, want string }{
		{`exporter = "otlp-http"`, `otel.exporter: "otlp-http" needs its endpoint`},
		{`exporter = { otlp-http = { protocol = "binary" } }`, "otel.exporter.otlp-http: missing endpoint"},
		{`exporter = { otlp-htp = { endpoint = "http://h" } }`, `otel.exporter.otlp-htp: unknown exporter (did you mean "otlp-http"?)`},
		{`trace_exporter = { otlp-grpc = { endpoint = "h:4317" } }`, "otel.trace_exporter.otlp-grpc.endpoint: invalid URL h:4317"},
		{`exporter = { otlp-http = { endpoint = "http://h", headers = { a = 1 } } }`, "otel.exporter.otlp-http.headers.a: expected a string, got integer"},
		{`exporter = 3`, "otel.exporter: expected a string or a table, got integer"},
		{`exporter = { otlp-grpc = { endpoint = "https://h", tls = { client-certificate = "c.pem" } } }`, "otel.exporter.otlp-grpc.tls: client-certificate and client-private-key go together"},
	} {
		_, err := config.Load(config.Options{Home: writeHome(t, "[otel]\n"+tc.file+"\n")})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestOtelTLS: Codex's tls table, its relative paths taken from the
// config file's directory.
func TestOtelTLS(t *testing.T) {
	home := writeHome(t, "[otel.trace_exporter.otlp-grpc]\nendpoint = \"https://otel.example.com:4317\"\n"+
		"tls = { ca-certificate = \"certs/ca.pem\", client-certificate = \"/etc/c.pem\", client-private-key = \"/etc/k.pem\" }\n")
	c, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	want := config.OtelTLS{CACertificate: filepath.Join(home, "certs", "ca.pem"), ClientCertificate: "/etc/c.pem", ClientPrivateKey: "/etc/k.pem"}
	if got := c.Otel.TraceExporter.TLS; got != want {
		t.Errorf("tls = %+v, want %+v", got, want)
	}
}
