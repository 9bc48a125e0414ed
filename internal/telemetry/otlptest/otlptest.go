// Package otlptest is an OTLP receiver for tests: the collector's logs
// and trace services over HTTP (protobuf bodies, as a collector's
// otlphttp receiver takes them) and over gRPC, recording what arrives.
package otlptest

import (
	"context"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Event is one log record or span that arrived, flattened.
type Event struct {
	// Name is the log record's event name, or the span's name.
	Name string
	// Span says it arrived as a span.
	Span bool
	// Attrs are its attributes as text; Resource the resource's.
	Attrs    map[string]string
	Resource map[string]string
	// Header is the request's headers (gRPC: its metadata).
	Header http.Header
}

// Receiver records what OTLP exporters send it. It is safe for concurrent
// use.
type Receiver struct {
	mu     sync.Mutex
	events []Event
	// URL is the HTTP receiver's root (POST /v1/logs, /v1/traces) or the
	// gRPC server's http:// address.
	URL string
}

// Events returns what arrived so far.
func (r *Receiver) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Named returns the events called name.
func (r *Receiver) Named(name string) []Event {
	var out []Event
	for _, e := range r.Events() {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func (r *Receiver) addLogs(req *collogs.ExportLogsServiceRequest, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rl := range req.GetResourceLogs() {
		res := flatten(rl.GetResource().GetAttributes())
		for _, sl := range rl.GetScopeLogs() {
			for _, lr := range sl.GetLogRecords() {
				r.events = append(r.events, Event{Name: lr.GetEventName(), Attrs: flatten(lr.GetAttributes()), Resource: res, Header: h})
			}
		}
	}
}

func (r *Receiver) addSpans(req *coltrace.ExportTraceServiceRequest, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		res := flatten(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				r.events = append(r.events, Event{Name: sp.GetName(), Span: true, Attrs: flatten(sp.GetAttributes()), Resource: res, Header: h})
			}
		}
	}
}

func flatten(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		default:
			m[kv.GetKey()] = anyText(v)
		}
	}
	return m
}

// anyText is a non-string value as text (ints, bools).
func anyText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	}
	return v.String()
}

// NewHTTP starts an OTLP/HTTP receiver, closed when the test ends.
func NewHTTP(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(r.handler())
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// NewHTTPS starts an OTLP/HTTP receiver over TLS, closed when the test
// ends, and returns it with a PEM file of the certificate it presents.
func NewHTTPS(t testing.TB) (r *Receiver, caFile string) {
	r = &Receiver{}
	srv := httptest.NewTLSServer(r.handler())
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, block, 0o600); err != nil {
		t.Fatal(err)
	}
	return r, caFile
}

// handler is the HTTP receiver's: POST /v1/logs and /v1/traces.
func (r *Receiver) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var resp proto.Message
		switch req.URL.Path {
		case "/v1/logs":
			var m collogs.ExportLogsServiceRequest
			if err := proto.Unmarshal(body, &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.addLogs(&m, req.Header.Clone())
			resp = &collogs.ExportLogsServiceResponse{}
		case "/v1/traces":
			var m coltrace.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.addSpans(&m, req.Header.Clone())
			resp = &coltrace.ExportTraceServiceResponse{}
		default:
			http.NotFound(w, req)
			return
		}
		out, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
}

// NewGRPC starts an OTLP/gRPC receiver (the logs and trace services),
// stopped when the test ends.
func NewGRPC(t testing.TB) *Receiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	collogs.RegisterLogsServiceServer(srv, &logsService{r: r})
	coltrace.RegisterTraceServiceServer(srv, &traceService{r: r})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return r
}

type logsService struct {
	collogs.UnimplementedLogsServiceServer
	r *Receiver
}

func (s *logsService) Export(ctx context.Context, req *collogs.ExportLogsServiceRequest) (*collogs.ExportLogsServiceResponse, error) {
	s.r.addLogs(req, header(ctx))
	return &collogs.ExportLogsServiceResponse{}, nil
}

type traceService struct {
	coltrace.UnimplementedTraceServiceServer
	r *Receiver
}

func (s *traceService) Export(ctx context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	s.r.addSpans(req, header(ctx))
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// header is a gRPC call's metadata as an http.Header.
func header(ctx context.Context) http.Header {
	md, _ := metadata.FromIncomingContext(ctx)
	h := http.Header{}
	for k, vs := range md {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	return h
}
