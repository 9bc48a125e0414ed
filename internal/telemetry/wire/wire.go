// Package wire is the stream agent writes to its telemetry exporter,
// agent-otel: one JSON [Settings] line, then one JSON [Record] line per
// event, until the stream ends. It holds no OpenTelemetry code, so agent
// links none.
package wire

import "time"

// Exporter kinds, as [otel] names them.
const (
	None     = "none"
	OTLPHTTP = "otlp-http"
	OTLPGRPC = "otlp-grpc"
)

// Settings is the first line: where the exporter sends what.
type Settings struct {
	// Service and Version name the program in the resource
	// (service.name, service.version); Environment is its env attribute.
	Service     string `json:"service"`
	Version     string `json:"version"`
	Environment string `json:"environment"`
	// Logs receives every record as a log event ([otel] exporter);
	// Traces receives the records that have a Start as spans
	// (trace_exporter).
	Logs   Exporter `json:"logs"`
	Traces Exporter `json:"traces"`
}

// Exporter is one OTLP destination. Headers are secrets: they travel on
// the exporter's standard input only, never in its arguments or
// environment.
type Exporter struct {
	// Kind is None (or ""), OTLPHTTP or OTLPGRPC.
	Kind string `json:"kind,omitempty"`
	// Endpoint is the URL requests go to: for OTLP/HTTP the whole URL
	// (http://host:4318/v1/logs), for gRPC the server (http://host:4317;
	// http: sends without TLS).
	Endpoint string            `json:"endpoint,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	// TLS, when set, names PEM files: roots trusted besides the system's,
	// and a client certificate with its key (mutual TLS).
	TLS *TLS `json:"tls,omitempty"`
}

// TLS is an exporter's certificates, as absolute file paths; "" for none.
type TLS struct {
	CA   string `json:"ca,omitempty"`
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
}

// On reports whether e exports anything.
func (e Exporter) On() bool { return e.Kind != "" && e.Kind != None }

// Record is one event (codex.api_request, codex.tool_result, ...).
type Record struct {
	// Name is the event's name, also its event.name attribute.
	Name string    `json:"name"`
	Time time.Time `json:"time"`
	// Start, when set, makes the record a span too, from Start to Time.
	Start time.Time `json:"start,omitzero"`
	Attrs []Attr    `json:"attrs,omitempty"`
}

// Attr is one attribute: a string, an integer or a boolean.
type Attr struct {
	Key  string `json:"k"`
	Str  string `json:"s,omitempty"`
	Int  *int64 `json:"i,omitempty"`
	Bool *bool  `json:"b,omitempty"`
}

// String is a string attribute.
func String(k, v string) Attr { return Attr{Key: k, Str: v} }

// Int is an integer attribute.
func Int(k string, v int64) Attr { return Attr{Key: k, Int: &v} }

// Bool is a boolean attribute.
func Bool(k string, v bool) Attr { return Attr{Key: k, Bool: &v} }
