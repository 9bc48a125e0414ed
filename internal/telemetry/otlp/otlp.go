// Package otlp is agent-otel's side of agent's telemetry: it reads the
// [wire] stream agent writes and exports it through OpenTelemetry's Go SDK
// over OTLP (HTTP or gRPC): every record as a log event, and records that
// carry a start as spans. Only cmd/agent-otel links it, so agent's own
// start-up carries none of the SDK, gRPC or protobuf.
package otlp

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/credentials"

	"github.com/agentcli/agent/internal/telemetry/wire"
)

// scope is the instrumentation scope of every log event and span.
const scope = "agent"

// DefaultFlushTimeout bounds the last export when the stream ends.
const DefaultFlushTimeout = 5 * time.Second

// Options configure [Run].
type Options struct {
	// FlushTimeout bounds the export of what is still queued when the
	// stream ends; [DefaultFlushTimeout] when zero.
	FlushTimeout time.Duration
	// BatchTimeout is how long a record may wait in the queue before it
	// is sent; the SDK's default (1 s for logs, 5 s for spans) when zero.
	BatchTimeout time.Duration
}

// Run reads the stream from in until it ends or ctx does, exporting each
// record as it comes, then flushes what is queued (at most FlushTimeout)
// and returns. A malformed first line is an error; a malformed record
// later is skipped and counted in the returned error.
func Run(ctx context.Context, in io.Reader, opts Options) error {
	if opts.FlushTimeout <= 0 {
		opts.FlushTimeout = DefaultFlushTimeout
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("read settings: %w", err)
		}
		return nil // nothing to export
	}
	var s wire.Settings
	if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
		return fmt.Errorf("read settings: %w", err)
	}
	ex, err := newExport(ctx, s, opts)
	if err != nil {
		return err
	}
	bad := 0
	for sc.Scan() {
		var r wire.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad++
			continue
		}
		ex.emit(ctx, r)
	}
	flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.FlushTimeout)
	defer cancel()
	errs := []error{sc.Err(), ex.shutdown(flush)}
	if bad > 0 {
		errs = append(errs, fmt.Errorf("%d malformed records skipped", bad))
	}
	return errors.Join(errs...)
}

// export holds the providers of one stream.
type export struct {
	logs   *sdklog.LoggerProvider
	logger otellog.Logger
	traces *sdktrace.TracerProvider
	tracer trace.Tracer
}

func newExport(ctx context.Context, s wire.Settings, opts Options) (*export, error) {
	res := resource.NewSchemaless(
		attribute.String("service.name", s.Service),
		attribute.String("service.version", s.Version),
		attribute.String("env", s.Environment),
	)
	ex := &export{}
	if s.Logs.On() {
		exp, err := logExporter(ctx, s.Logs)
		if err != nil {
			return nil, fmt.Errorf("[otel] exporter: %w", err)
		}
		var bo []sdklog.BatchProcessorOption
		if opts.BatchTimeout > 0 {
			bo = append(bo, sdklog.WithExportInterval(opts.BatchTimeout))
		}
		ex.logs = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewBatchProcessor(exp, bo...)))
		ex.logger = ex.logs.Logger(scope)
	}
	if s.Traces.On() {
		exp, err := traceExporter(ctx, s.Traces)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("[otel] trace_exporter: %w", err), ex.shutdown(ctx))
		}
		var bo []sdktrace.BatchSpanProcessorOption
		if opts.BatchTimeout > 0 {
			bo = append(bo, sdktrace.WithBatchTimeout(opts.BatchTimeout))
		}
		ex.traces = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp, bo...))
		ex.tracer = ex.traces.Tracer(scope)
	}
	return ex, nil
}

// logExporter is the OTLP log exporter e names.
func logExporter(ctx context.Context, e wire.Exporter) (sdklog.Exporter, error) {
	tc, err := tlsConfig(e.TLS)
	if err != nil {
		return nil, err
	}
	switch e.Kind {
	case wire.OTLPHTTP:
		o := []otlploghttp.Option{otlploghttp.WithEndpointURL(e.Endpoint), otlploghttp.WithHeaders(e.Headers)}
		if tc != nil {
			o = append(o, otlploghttp.WithTLSClientConfig(tc))
		}
		return otlploghttp.New(ctx, o...)
	case wire.OTLPGRPC:
		o := []otlploggrpc.Option{otlploggrpc.WithEndpointURL(e.Endpoint), otlploggrpc.WithHeaders(e.Headers)}
		if tc != nil {
			o = append(o, otlploggrpc.WithTLSCredentials(credentials.NewTLS(tc)))
		}
		return otlploggrpc.New(ctx, o...)
	}
	return nil, fmt.Errorf("unknown exporter %q", e.Kind)
}

// traceExporter is the OTLP span exporter e names.
func traceExporter(ctx context.Context, e wire.Exporter) (sdktrace.SpanExporter, error) {
	tc, err := tlsConfig(e.TLS)
	if err != nil {
		return nil, err
	}
	switch e.Kind {
	case wire.OTLPHTTP:
		o := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(e.Endpoint), otlptracehttp.WithHeaders(e.Headers)}
		if tc != nil {
			o = append(o, otlptracehttp.WithTLSClientConfig(tc))
		}
		return otlptracehttp.New(ctx, o...)
	case wire.OTLPGRPC:
		o := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(e.Endpoint), otlptracegrpc.WithHeaders(e.Headers)}
		if tc != nil {
			o = append(o, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(tc)))
		}
		return otlptracegrpc.New(ctx, o...)
	}
	return nil, fmt.Errorf("unknown exporter %q", e.Kind)
}

// tlsConfig is the TLS configuration of t's files, nil without any: the
// system's roots plus t.CA, and the client certificate.
func tlsConfig(t *wire.TLS) (*tls.Config, error) {
	if t == nil || *t == (wire.TLS{}) {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return nil, fmt.Errorf("tls ca-certificate: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca-certificate %s: no PEM certificate in it", t.CA)
		}
		c.RootCAs = pool
	}
	if t.Cert != "" {
		pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, fmt.Errorf("tls client-certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// emit exports r: a log event, and a span when it has a start.
func (ex *export) emit(ctx context.Context, r wire.Record) {
	attrs := make([]attribute.KeyValue, 0, len(r.Attrs))
	for _, a := range r.Attrs {
		attrs = append(attrs, attr(a))
	}
	if ex.logger != nil {
		var lr otellog.Record
		lr.SetEventName(r.Name)
		lr.SetTimestamp(r.Time)
		lr.SetObservedTimestamp(r.Time)
		lr.SetSeverity(otellog.SeverityInfo)
		lr.SetBody(attribute.StringValue(r.Name))
		lr.AddAttributes(attribute.String("event.name", r.Name))
		lr.AddAttributes(attrs...)
		ex.logger.Emit(ctx, lr)
	}
	if ex.tracer != nil && !r.Start.IsZero() {
		_, sp := ex.tracer.Start(ctx, r.Name, trace.WithTimestamp(r.Start), trace.WithAttributes(attrs...))
		sp.End(trace.WithTimestamp(r.Time))
	}
}

func attr(a wire.Attr) attribute.KeyValue {
	switch {
	case a.Int != nil:
		return attribute.Int64(a.Key, *a.Int)
	case a.Bool != nil:
		return attribute.Bool(a.Key, *a.Bool)
	}
	return attribute.String(a.Key, a.Str)
}

// shutdown flushes and stops both providers.
func (ex *export) shutdown(ctx context.Context) error {
	var errs []error
	if ex.logs != nil {
		errs = append(errs, ex.logs.Shutdown(ctx))
	}
	if ex.traces != nil {
		errs = append(errs, ex.traces.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
