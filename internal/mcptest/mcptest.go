// Package mcptest provides a Model Context Protocol server for tests, built
// with the official SDK. It exposes two tools, echo and add, and can add
// tools for failure modes (a call that blocks until it is cancelled, a call
// that crashes the server). Serve it over streamable HTTP in-process with
// [NewHTTPServer], or over stdio as a child process: [Build] compiles the
// cmd/mcptestserver binary, whose flags select the same behaviours.
//
// Nothing here sleeps: a server that "hangs" waits on a channel or on its
// input until the test releases it or the client goes away.
package mcptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options select the tools of a server made by [NewServer].
type Options struct {
	// Name is the implementation name the server reports; default
	// "mcptest".
	Name string
	// Image adds the tool "image", whose result is a caption and [PNG].
	Image bool
	// Block adds the tool "block", whose calls return only when they are
	// cancelled (for tool timeouts).
	Block bool
	// Destructive adds the tool "delete", annotated destructiveHint (it
	// echoes its text, deleting nothing).
	Destructive bool
	// Annotated adds tools that echo their text, annotated: "post"
	// openWorldHint; "search" openWorldHint and readOnlyHint; "local"
	// destructiveHint false and openWorldHint false; "keep"
	// destructiveHint false (openWorldHint absent); "wipe" readOnlyHint
	// and destructiveHint.
	Annotated bool
	// Crash, if non-nil, adds the tool "crash", whose calls run Crash
	// (the stdio binary exits the process there) and then block until
	// cancelled.
	Crash func()
	// Prompts adds the prompts "greet" (arguments name, required, and
	// style: "Say hello to NAME." and, given a style, "Make it STYLE.")
	// and "picture" (a text message and an image).
	Prompts bool
	// Resources adds the resource "file:///notes.txt" (text "the notes")
	// and the template "file:///logs/{day}.txt".
	Resources bool
	// AnnounceChange sends tools/list_changed as soon as a client has
	// initialized, its tools unchanged (as some servers do at start).
	AnnounceChange bool
	// Elicit adds the tool "book", which asks the client (elicitation)
	// for a name (string) and a seat (enum window, aisle) and answers
	// "booked NAME at SEAT", or "the user declined" / "the user cancelled".
	Elicit bool
}

// EchoInput is the input of the echo tool.
type EchoInput struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

// AddInput is the input of the add tool.
type AddInput struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

// AddOutput is the structured output of the add tool.
type AddOutput struct {
	Sum float64 `json:"sum"`
}

// PNG is the image the image tool returns: a 1x1 red pixel.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde" +
	"\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")

// NewServer returns an MCP server with the tools echo (returns its text)
// and add (returns the sum of a and b as text and structured content),
// plus those opts asks for.
func NewServer(opts Options) *gomcp.Server { return newServer(opts, nil) }

// newServer is NewServer whose blocked calls also end when stop is closed
// (nil: only when they are cancelled).
func newServer(opts Options, stop <-chan struct{}) *gomcp.Server {
	name := opts.Name
	if name == "" {
		name = "mcptest"
	}
	var s *gomcp.Server
	echo := func() {
		gomcp.AddTool(s, &gomcp.Tool{Name: "echo", Description: "Echoes the given text."},
			func(_ context.Context, _ *gomcp.CallToolRequest, in EchoInput) (*gomcp.CallToolResult, any, error) {
				return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	var sopts *gomcp.ServerOptions
	if opts.AnnounceChange {
		// Adding echo again sends tools/list_changed, the list the same.
		sopts = &gomcp.ServerOptions{InitializedHandler: func(context.Context, *gomcp.InitializedRequest) { echo() }}
	}
	s = gomcp.NewServer(&gomcp.Implementation{Name: name, Version: "1.0.0"}, sopts)
	echo()
	gomcp.AddTool(s, &gomcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *gomcp.CallToolRequest, in AddInput) (*gomcp.CallToolResult, AddOutput, error) {
			return nil, AddOutput{Sum: in.A + in.B}, nil
		})
	if opts.Image {
		gomcp.AddTool(s, &gomcp.Tool{Name: "image", Description: "Returns a 1x1 PNG image and a caption."},
			func(_ context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
				return &gomcp.CallToolResult{Content: []gomcp.Content{
					&gomcp.TextContent{Text: "a red pixel"},
					&gomcp.ImageContent{Data: PNG, MIMEType: "image/png"},
				}}, nil, nil
			})
	}
	if opts.Destructive {
		yes := true
		gomcp.AddTool(s, &gomcp.Tool{Name: "delete", Description: "Deletes (here: echoes) the given text.",
			Annotations: &gomcp.ToolAnnotations{DestructiveHint: &yes}},
			func(_ context.Context, _ *gomcp.CallToolRequest, in EchoInput) (*gomcp.CallToolResult, any, error) {
				return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	if opts.Annotated {
		addAnnotated(s)
	}
	if opts.Block {
		gomcp.AddTool(s, &gomcp.Tool{Name: "block", Description: "Blocks until the call is cancelled."},
			func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
				return nil, nil, blockUntil(ctx, stop)
			})
	}
	if opts.Prompts {
		addPrompts(s)
	}
	if opts.Elicit {
		addBook(s)
	}
	if opts.Resources {
		addResources(s)
	}
	if opts.Crash != nil {
		gomcp.AddTool(s, &gomcp.Tool{Name: "crash", Description: "Crashes the server."},
			func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
				opts.Crash()
				return nil, nil, blockUntil(ctx, stop)
			})
	}
	return s
}

// addAnnotated adds the tools of [Options.Annotated] to s.
func addAnnotated(s *gomcp.Server) {
	yes, no := true, false
	echo := func(_ context.Context, _ *gomcp.CallToolRequest, in EchoInput) (*gomcp.CallToolResult, any, error) {
		return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: in.Text}}}, nil, nil
	}
	for _, t := range []struct {
		name string
		a    gomcp.ToolAnnotations
	}{
		{"post", gomcp.ToolAnnotations{OpenWorldHint: &yes}},
		{"search", gomcp.ToolAnnotations{OpenWorldHint: &yes, ReadOnlyHint: true}},
		{"local", gomcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}},
		{"keep", gomcp.ToolAnnotations{DestructiveHint: &no}},
		{"wipe", gomcp.ToolAnnotations{DestructiveHint: &yes, ReadOnlyHint: true}},
	} {
		gomcp.AddTool(s, &gomcp.Tool{Name: t.name, Description: "Echoes the given text (" + t.name + ").", Annotations: &t.a}, echo)
	}
}

// addPrompts adds the prompts of [Options.Prompts] to s.
func addPrompts(s *gomcp.Server) {
	s.AddPrompt(&gomcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*gomcp.PromptArgument{
		{Name: "name", Description: "who to greet", Required: true},
		{Name: "style", Description: "how"},
	}}, func(_ context.Context, req *gomcp.GetPromptRequest) (*gomcp.GetPromptResult, error) {
		text := "Say hello to " + req.Params.Arguments["name"] + "."
		if style := req.Params.Arguments["style"]; style != "" {
			text += "\nMake it " + style + "."
		}
		return &gomcp.GetPromptResult{Messages: []*gomcp.PromptMessage{
			{Role: "user", Content: &gomcp.TextContent{Text: text}},
		}}, nil
	})
	s.AddPrompt(&gomcp.Prompt{Name: "picture", Description: "Describes a picture."},
		func(context.Context, *gomcp.GetPromptRequest) (*gomcp.GetPromptResult, error) {
			return &gomcp.GetPromptResult{Messages: []*gomcp.PromptMessage{
				{Role: "user", Content: &gomcp.TextContent{Text: "Describe this picture."}},
				{Role: "user", Content: &gomcp.ImageContent{Data: PNG, MIMEType: "image/png"}},
			}}, nil
		})
}

// blockUntil waits until ctx is done or stop is closed. A client's
// cancellation can arrive before the call it cancels (streamable HTTP
// sends them in separate requests) and is then ignored, as MCP allows: the
// call would block for ever, and with it the server's Close, which waits
// for calls in flight.
func blockUntil(ctx context.Context, stop <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return errors.New("mcptest: server closed")
	}
}

// HTTPOptions configure a server made by [NewHTTPServer].
type HTTPOptions struct {
	Options
	// Hold makes every request wait, before it is served, until
	// [HTTPServer.Release] is called or the request is cancelled: a server
	// that hangs at start-up.
	Hold bool
}

// HTTPServer is an MCP server on a loopback streamable HTTP endpoint. Its
// methods are safe for concurrent use.
type HTTPServer struct {
	// URL is the endpoint to configure as a server's url.
	URL string
	// MCP is the server behind it, to change its tools while it runs.
	MCP *gomcp.Server

	srv      *httptest.Server
	arrived  chan struct{}
	release  chan struct{}
	mu       sync.Mutex
	headers  []http.Header
	once     sync.Once
	relOnce  sync.Once
	closeOne sync.Once
	stop     chan struct{} // closed by Close: blocked calls end
}

// NewHTTPServer starts an MCP server over streamable HTTP and registers
// its Close with tb.Cleanup.
func NewHTTPServer(tb testing.TB, opts HTTPOptions) *HTTPServer {
	tb.Helper()
	stop := make(chan struct{})
	mcpSrv := newServer(opts.Options, stop)
	h := gomcp.NewStreamableHTTPHandler(func(*http.Request) *gomcp.Server { return mcpSrv }, nil)
	s := &HTTPServer{MCP: mcpSrv, arrived: make(chan struct{}), release: make(chan struct{}), stop: stop}
	if !opts.Hold {
		s.Release()
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		// Read the body first: only then does net/http watch the
		// connection, so a client going away cancels a held request.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.once.Do(func() { close(s.arrived) })
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL + "/mcp"
	tb.Cleanup(s.Close)
	return s
}

// Arrived is closed when the first request arrives.
func (s *HTTPServer) Arrived() <-chan struct{} { return s.arrived }

// Release lets held requests, current and future, be served. It is
// idempotent.
func (s *HTTPServer) Release() { s.relOnce.Do(func() { close(s.release) }) }

// Headers returns the headers of every request received so far, in order.
func (s *HTTPServer) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]http.Header, len(s.headers))
	for i, h := range s.headers {
		out[i] = h.Clone()
	}
	return out
}

// Close drops client connections and shuts the server down. It is
// idempotent.
func (s *HTTPServer) Close() {
	s.closeOne.Do(func() {
		close(s.stop)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Package is the import path of the stdio server binary.
const Package = "github.com/agentcli/agent/internal/mcptest/cmd/mcptestserver"

// Build compiles the stdio server binary into dir and returns its path.
// Its flags: -block, -crash and -image add those tools; -destructive
// and -annotated the tools of [Options.Destructive] and
// [Options.Annotated]; -log FILE appends a line "NAME ARGUMENTS" to FILE
// for each tools/call it receives, before running it; -prompts adds
// the prompts of [Options.Prompts]; -hang never answers (it
// reads its input until EOF); -fail MSG prints MSG on stderr and exits 1
// at once; -stderr MSG prints MSG on stderr before serving.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "mcptestserver")
	out, err := exec.Command("go", "build", "-o", bin, Package).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("mcptest: go build: %w\n%s", err, out)
	}
	return bin, nil
}

// ErrCrash is what the stdio binary's crash tool reports on stderr.
var ErrCrash = errors.New("mcptest: crashing on purpose")

// addBook adds the tool of [Options.Elicit] to s.
func addBook(s *gomcp.Server) {
	gomcp.AddTool(s, &gomcp.Tool{Name: "book", Description: "Books a seat, asking the user who and where."},
		func(ctx context.Context, req *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
			r, err := req.Session.Elicit(ctx, &gomcp.ElicitParams{Message: "Who travels, and where to sit?", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name": map[string]any{"type": "string", "title": "Name"},
					"seat": map[string]any{"type": "string", "enum": []string{"window", "aisle"}},
				},
			}})
			if err != nil {
				return nil, nil, err
			}
			text := "the user " + r.Action + "d"
			if r.Action == "cancel" {
				text = "the user cancelled"
			}
			if r.Action == "accept" {
				text = fmt.Sprintf("booked %v at %v", r.Content["name"], r.Content["seat"])
			}
			return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: text}}}, nil, nil
		})
}

// addResources adds the resource and template of [Options.Resources] to s.
func addResources(s *gomcp.Server) {
	s.AddResource(&gomcp.Resource{URI: "file:///notes.txt", Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, req *gomcp.ReadResourceRequest) (*gomcp.ReadResourceResult, error) {
			return &gomcp.ReadResourceResult{Contents: []*gomcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "the notes"}}}, nil
		})
	s.AddResourceTemplate(&gomcp.ResourceTemplate{URITemplate: "file:///logs/{day}.txt", Name: "log of a day"},
		func(_ context.Context, req *gomcp.ReadResourceRequest) (*gomcp.ReadResourceResult, error) {
			return &gomcp.ReadResourceResult{Contents: []*gomcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "log"}}}, nil
		})
}
