package config

import (
	"maps"
	"net/url"
	"path/filepath"
	"slices"
)

// DefaultOtelEnvironment is [otel] environment when unset, as in Codex.
const DefaultOtelEnvironment = "dev"

// Otel is the [otel] table: agent's telemetry, Codex's events over OTLP
// (internal/telemetry). The zero Exporter sends nothing.
type Otel struct {
	// Environment is the env attribute of everything sent;
	// [DefaultOtelEnvironment] by default.
	Environment string
	// Exporter receives every event as a log record (exporter);
	// TraceExporter the requests and tool calls as spans (trace_exporter).
	Exporter, TraceExporter OtelExporter
	// LogUserPrompt sends prompts as typed; false (the default) sends
	// "[REDACTED]".
	LogUserPrompt bool
}

// On reports whether anything is exported.
func (o Otel) On() bool { return o.Exporter.On() || o.TraceExporter.On() }

// OtelExporter is one exporter of [otel]: "none", or
// { otlp-http = { endpoint, headers, protocol } } or
// { otlp-grpc = { endpoint, headers } }.
type OtelExporter struct {
	// Kind is "", "none", "otlp-http" or "otlp-grpc".
	Kind string
	// Endpoint is the URL: for otlp-http the whole one
	// (http://host:4318/v1/logs), for otlp-grpc the server's.
	Endpoint string
	// Headers are sent with every export; their values are secrets.
	Headers map[string]string
	// TLS is the exporter's tls table; the zero value uses the system's
	// roots and no client certificate.
	TLS OtelTLS
}

// OtelTLS is an exporter's tls table: absolute paths (a relative one in
// config.toml is taken from the file's directory, as Codex does).
type OtelTLS struct {
	// CACertificate is a PEM file of roots trusted besides the system's.
	CACertificate string
	// ClientCertificate and ClientPrivateKey are a PEM certificate and its
	// key, presented to the collector (mutual TLS); both or neither.
	ClientCertificate, ClientPrivateKey string
}

// On reports whether e sends anything.
func (e OtelExporter) On() bool { return e.Kind == "otlp-http" || e.Kind == "otlp-grpc" }

// otelFile is [otel] on disk. Exporter and TraceExporter are a string or
// a one-key table; the checker turns them into logs and traces.
type otelFile struct {
	Environment   *string `toml:"environment"`
	Exporter      any     `toml:"exporter"`
	TraceExporter any     `toml:"trace_exporter"`
	LogUserPrompt *bool   `toml:"log_user_prompt"`

	logs, traces *OtelExporter
}

// otelCodexKeys are Codex's [otel] keys agent does not implement: each
// loads with a warning.
func otelCodexKeys() []string {
	return []string{"metrics_exporter", "span_attributes", "tracestate"}
}

// otelUnknown reports whether path is a key in [otel] that agent does not
// read, which warns rather than fails: telemetry never stops a session.
func otelUnknown(path []string) bool { return len(path) == 2 && path[0] == "otel" }

// applyOtel applies the keys set in f, if any.
func (c *Config) applyOtel(f *otelFile) {
	if f == nil {
		return
	}
	set(&c.Otel.Environment, f.Environment)
	set(&c.Otel.LogUserPrompt, f.LogUserPrompt)
	if f.logs != nil {
		c.Otel.Exporter = *f.logs
	}
	if f.traces != nil {
		c.Otel.TraceExporter = *f.traces
	}
}

// otel checks an [otel] table.
func (c checker) otel(f *otelFile) {
	if f == nil {
		return
	}
	c.nonEmpty([]string{"otel", "environment"}, &f.Environment)
	f.logs = c.otelExporter([]string{"otel", "exporter"}, f.Exporter)
	f.traces = c.otelExporter([]string{"otel", "trace_exporter"}, f.TraceExporter)
}

// otelExporter checks an exporter value at path and returns it, or nil
// when v is unset or invalid.
func (c checker) otelExporter(path []string, v any) *OtelExporter {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		switch v {
		case "none":
			return &OtelExporter{Kind: "none"}
		case "statsig":
			c.warns.add(c.src, path, `Codex's own statsig exporter; agent exports nothing for "statsig"`)
			return &OtelExporter{Kind: "none"}
		case "otlp-http", "otlp-grpc":
			c.probs.add(c.src, path, `%q needs its endpoint: exporter = { %s = { endpoint = "..." } }`, v, v)
			return nil
		}
		c.probs.add(c.src, path, `invalid value %q (expected "none", { otlp-http = { ... } } or { otlp-grpc = { ... } })`, v)
		return nil
	case map[string]any:
		if len(v) != 1 {
			c.probs.add(c.src, path, "expected one of otlp-http or otlp-grpc, got %d keys", len(v))
			return nil
		}
		kind := slices.Collect(maps.Keys(v))[0]
		t, ok := v[kind].(map[string]any)
		if kind != "otlp-http" && kind != "otlp-grpc" {
			c.probs.add(c.src, at(path, kind), "unknown exporter%s", hintNames(kind, []string{"otlp-http", "otlp-grpc"}))
			return nil
		}
		if !ok {
			c.probs.add(c.src, at(path, kind), "expected a table, got %s", typeName(v[kind]))
			return nil
		}
		return c.otlp(at(path, kind), kind, t)
	}
	c.probs.add(c.src, path, "expected a string or a table, got %s", typeName(v))
	return nil
}

// otlp checks the table of an otlp-http or otlp-grpc exporter at path.
func (c checker) otlp(path []string, kind string, t map[string]any) *OtelExporter {
	e := &OtelExporter{Kind: kind}
	good := true
	for _, k := range sortedKeys(t) {
		p := at(path, k)
		switch k {
		case "endpoint":
			s, ok := t[k].(string)
			if u, err := url.Parse(s); !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				c.probs.add(c.src, p, "invalid URL %v (expected http:// or https://)", t[k])
				good = false
			}
			e.Endpoint = s
		case "headers":
			h, ok := t[k].(map[string]any)
			if !ok {
				c.probs.add(c.src, p, "expected a table of strings, got %s", typeName(t[k]))
				good = false
				continue
			}
			e.Headers = map[string]string{}
			for _, name := range sortedKeys(h) {
				s, ok := h[name].(string)
				if !ok {
					c.probs.add(c.src, at(p, name), "expected a string, got %s", typeName(h[name]))
					good = false
				}
				e.Headers[name] = s
			}
		case "protocol":
			if kind == "otlp-grpc" {
				c.probs.add(c.src, p, "unknown key (protocol is otlp-http's)")
				good = false
			} else if t[k] == "json" {
				c.warns.add(c.src, p, `agent's OTLP/HTTP exporter sends protobuf ("binary"); "json" is not supported, binary is sent`)
			} else if t[k] != "binary" {
				c.probs.add(c.src, p, `invalid value %v (expected "binary" or "json")`, t[k])
				good = false
			}
		case "tls":
			good = c.otelTLS(p, t[k], &e.TLS) && good
		default:
			c.warns.add(c.src, p, "unknown key of the exporter; ignored"+hintNames(k, []string{"endpoint", "headers", "protocol", "tls"}))
		}
	}
	if _, ok := t["endpoint"]; !ok {
		c.probs.add(c.src, path, "missing endpoint")
		good = false
	}
	if !good {
		return nil
	}
	return e
}

// otelTLS checks an exporter's tls table at path into tls and reports
// whether it is good.
func (c checker) otelTLS(path []string, v any, tls *OtelTLS) bool {
	t, ok := v.(map[string]any)
	if !ok {
		c.probs.add(c.src, path, "expected a table, got %s", typeName(v))
		return false
	}
	keys := []string{"ca-certificate", "client-certificate", "client-private-key"}
	dst := []*string{&tls.CACertificate, &tls.ClientCertificate, &tls.ClientPrivateKey}
	good := true
	for _, k := range sortedKeys(t) {
		i := slices.Index(keys, k)
		if i < 0 {
			c.warns.add(c.src, at(path, k), "unknown key of tls; ignored"+hintNames(k, keys))
			continue
		}
		s, ok := t[k].(string)
		if !ok || s == "" {
			c.probs.add(c.src, at(path, k), "expected a file path, got %s", typeName(t[k]))
			good = false
			continue
		}
		if !filepath.IsAbs(s) && c.src.path != "" {
			s = filepath.Join(filepath.Dir(c.src.path), s)
		}
		*dst[i], _ = filepath.Abs(s)
	}
	if (tls.ClientCertificate == "") != (tls.ClientPrivateKey == "") {
		c.probs.add(c.src, path, "client-certificate and client-private-key go together")
		good = false
	}
	return good
}
