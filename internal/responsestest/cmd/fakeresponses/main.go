// Command fakeresponses serves the in-repo fake Responses API
// (internal/responsestest) as a standalone process, for whole-binary
// benchmarks of agent and of other clients. agent never needs it at run
// time.
//
// Usage:
//
//	fakeresponses [--listen 127.0.0.1:0] [--reply TEXT | --deltas N [--delta TEXT] [--delta-size BYTES]]
//	              [--call-args FILE] [--items N] [--openai] [--repeat N]
//	fakeresponses [--listen 127.0.0.1:0] --script FILE [--dump DIR]
//
// Every request to .../responses (SSE POST or WebSocket) is answered by the
// same scenario: --reply TEXT streams TEXT one word per delta (the default
// reply is "hello from the fake server"); --deltas N streams N deltas of
// --delta TEXT (default "tok ") instead, each its own
// response.output_text.delta event (with item_id, output_index and
// content_index) in its own write; --delta-size BYTES makes each delta
// --delta repeated to that many bytes (--deltas 1 --delta-size 10485760
// is one 10 MiB delta). With --call-args FILE each scenario is two
// requests: the first is answered with an exec_command function call whose
// arguments are FILE's text (streamed as one
// response.function_call_arguments.delta, then the item), the second (the
// call's output sent back) with the reply. --openai sends what OpenAI
// sends besides: a call's arguments in 64 KiB deltas, then
// response.function_call_arguments.done with all of them; a message's
// response.output_text.done and response.content_part.done; and every
// item again in response.completed's output (items with "id" first, as
// OpenAI orders them). --items N answers with N short messages instead,
// each its own response.output_item.done ("item I of the answer"), listed
// again in response.completed with --openai (many small items, issue 42).
// The scenario is repeated --repeat times, after which requests get a 500.
//
// --script FILE answers the requests in order with the attempts of a JSON
// script instead (format: responsestest.ParseScript); requests past its end
// get a 500. --dump DIR writes the body of request N to DIR/request-N.json,
// so a harness can compare what different clients sent.
//
// Standard output is line-oriented, for a harness to read. The first line is
// the base URL (clients POST to URL + "/responses"). After it comes one line
// when each HTTP request arrives (its headers parsed) and one when its
// handler returns, with wall-clock Unix nanoseconds:
//
//	http://127.0.0.1:40123/v1
//	request 1 1767225600123456789 POST /v1/responses
//	done 1 1767225600133456789
//
// Requests the script cannot answer are reported on standard error. The
// server stops on SIGINT or SIGTERM.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	rt "github.com/agentcli/agent/internal/responsestest"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "fakeresponses:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	listen string
	reply  string
	deltas int
	delta  string
	repeat int
	// callArgs, when set, are the arguments of an exec_command call that
	// answers every first request of a scenario (--call-args).
	callArgs string
	script   rt.Script // --script, parsed; nil: the --reply/--deltas scenario
	dump     string
	openai   bool // --openai: every event OpenAI sends, the items again at the end
	items    int  // --items: that many short messages instead of the reply
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("fakeresponses", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:0", "address to listen on")
	fs.StringVar(&c.reply, "reply", "hello from the fake server", "reply text, streamed one word per delta")
	fs.IntVar(&c.deltas, "deltas", 0, "stream this many --delta deltas instead of --reply")
	fs.StringVar(&c.delta, "delta", "tok ", "the text of each of the --deltas deltas")
	deltaSize := fs.Int("delta-size", 0, "repeat --delta to this many bytes in each delta")
	callFile := fs.String("call-args", "", "answer each scenario's first request with an exec_command call with this file's arguments")
	fs.IntVar(&c.repeat, "repeat", 100000, "how many requests the scenario answers")
	fs.IntVar(&c.items, "items", 0, "answer with this many short messages, each its own output_item.done")
	scriptFile := fs.String("script", "", "answer requests with the attempts of this JSON script file")
	fs.StringVar(&c.dump, "dump", "", "write each request body to DIR/request-N.json")
	fs.BoolVar(&c.openai, "openai", false, "send every event OpenAI sends (arguments in 64 KiB deltas and .done, output_text.done, content_part.done) and the items again in response.completed")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if *scriptFile != "" {
		b, err := os.ReadFile(*scriptFile)
		if err != nil {
			return c, err
		}
		if c.script, err = rt.ParseScript(b); err != nil {
			return c, fmt.Errorf("%s: %w", *scriptFile, err)
		}
	}
	if *callFile != "" {
		b, err := os.ReadFile(*callFile)
		if err != nil {
			return c, err
		}
		c.callArgs = string(b)
	}
	if *deltaSize < 0 {
		return c, errors.New("--delta-size must be >= 0")
	}
	if c.delta != "" && *deltaSize > 0 {
		c.delta = strings.Repeat(c.delta, *deltaSize/len(c.delta)+1)[:*deltaSize]
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.deltas < 0 || c.repeat < 1 || c.items < 0 {
		return c, errors.New("--deltas and --items must be >= 0 and --repeat >= 1")
	}
	if c.delta == "" {
		return c, errors.New("--delta must not be empty")
	}
	return c, nil
}

// attempt is the scenario's answer to one request.
func (c config) attempt() rt.Attempt {
	if c.items > 0 {
		return c.manyItems()
	}
	if c.deltas == 0 {
		return rt.Reply("resp_1", "msg_1", c.reply)
	}
	steps := make([]rt.Step, 0, c.deltas+4)
	steps = append(steps, rt.Created("resp_1"), rt.OutputItemAdded(map[string]any{
		"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []any{},
	}))
	delta := rt.TextDelta("msg_1", c.delta)
	for range c.deltas {
		steps = append(steps, delta)
	}
	text := strings.Repeat(c.delta, c.deltas)
	if !c.openai {
		steps = append(steps, rt.MessageDone("msg_1", text), rt.Completed("resp_1"))
		return rt.Stream(steps...)
	}
	item := message{ID: "msg_1", Type: "message", Status: "completed", Role: "assistant",
		Content: []outputText{{Type: "output_text", Annotations: []any{}, Text: text}}}
	steps = append(steps,
		rt.Event("response.output_text.done", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text}),
		rt.Event("response.content_part.done", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "part": item.Content[0]}),
		rt.Event("response.output_item.done", map[string]any{"output_index": 0, "item": item}),
		completedWith("resp_1", item))
	return rt.Stream(steps...)
}

// manyItems is the --items answer: c.items short messages, each delivered
// by its own response.output_item.done, then (--openai) listed again.
func (c config) manyItems() rt.Attempt {
	steps := []rt.Step{rt.Created("resp_1")}
	var output []any
	for i := range c.items {
		item := message{ID: fmt.Sprintf("msg_%d", i), Type: "message", Status: "completed", Role: "assistant",
			Content: []outputText{{Type: "output_text", Annotations: []any{}, Text: fmt.Sprintf("item %d of the answer", i)}}}
		steps = append(steps, rt.Event("response.output_item.done", map[string]any{"output_index": i, "item": item}))
		if c.openai {
			output = append(output, item)
		}
	}
	return rt.Stream(append(steps, completedWith("resp_1", output...))...)
}

// message and outputText are a message item with its fields in the order
// OpenAI sends them ("id" first).
type message struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
	Role    string       `json:"role"`
}

type outputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Text        string `json:"text"`
}

// functionCall is a function_call item in OpenAI's order.
type functionCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

// completedWith is response.completed listing output again.
func completedWith(respID string, output ...any) rt.Step {
	return rt.Event("response.completed", map[string]any{"response": map[string]any{
		"id": respID, "status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
	}})
}

// call is the answer to a --call-args scenario's first request: one
// exec_command call with c.callArgs.
func (c config) call() rt.Attempt {
	if c.openai {
		return c.openaiCall()
	}
	return rt.Stream(
		rt.Created("resp_call"),
		rt.OutputItemAdded(map[string]any{
			"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command", "arguments": "", "status": "in_progress",
		}),
		rt.Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": c.callArgs}),
		rt.FunctionCallDone("fc_1", "call_1", "exec_command", c.callArgs),
		rt.Completed("resp_call"),
	)
}

// openaiCall is call as OpenAI streams it (--openai).
func (c config) openaiCall() rt.Attempt {
	item := functionCall{ID: "fc_1", Type: "function_call", Status: "completed", Arguments: c.callArgs, CallID: "call_1", Name: "exec_command"}
	started := item
	started.Status, started.Arguments = "in_progress", ""
	steps := []rt.Step{rt.Created("resp_call"), rt.Event("response.output_item.added", map[string]any{"output_index": 0, "item": started})}
	for a := c.callArgs; a != ""; {
		n := min(len(a), 64<<10)
		for n < len(a) && !utf8.RuneStart(a[n]) {
			n-- // a delta ends on a character's boundary
		}
		steps = append(steps, rt.Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": a[:n]}))
		a = a[n:]
	}
	steps = append(steps,
		rt.Event("response.function_call_arguments.done", map[string]any{"item_id": "fc_1", "output_index": 0, "arguments": c.callArgs}),
		rt.Event("response.output_item.done", map[string]any{"output_index": 0, "item": item}),
		completedWith("resp_call", item))
	return rt.Stream(steps...)
}

// scenario is the script of the --reply/--deltas/--call-args scenario,
// repeated c.repeat times.
func (c config) scenario() rt.Script {
	one := rt.Script{c.attempt()}
	if c.callArgs != "" {
		one = rt.Script{c.call(), c.attempt()}
	}
	script := make(rt.Script, 0, len(one)*c.repeat)
	for range c.repeat {
		script = append(script, one...)
	}
	return script
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, c, ln, stdout, stderr)
}

// serve answers requests on ln with c's scenario until ctx ends, then shuts
// down and returns; it closes ln. It prints the base URL first, then the
// request log (see the package documentation) on stdout.
func serve(ctx context.Context, c config, ln net.Listener, stdout, stderr io.Writer) error {
	script := c.script
	if script == nil {
		script = c.scenario()
	}
	out := &lineWriter{w: stdout}
	fake := rt.New(script, rt.Options{OnUnexpected: func(msg string) { out.printTo(stderr, "%s\n", msg) }})
	defer fake.Close()
	srv := &http.Server{Handler: logArrivals(fake.Handler(), out, c.dump), ReadHeaderTimeout: 10 * time.Second}
	out.printf("http://%s/v1\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		fake.Close() // releases streaming handlers so Shutdown can finish
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(sctx)
		<-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// lineWriter serialises whole lines from concurrent handlers.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) { l.printTo(l.w, format, args...) }

// printTo writes to w under the same lock, so stderr lines never
// interleave with each other either.
func (l *lineWriter) printTo(w io.Writer, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(w, format, args...)
}

// logArrivals reports each request's arrival and end on out and, when dump
// is set, writes each request's body to dump/request-N.json.
func logArrivals(h http.Handler, out *lineWriter, dump string) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		if dump != "" && r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err == nil {
				err = os.WriteFile(filepath.Join(dump, fmt.Sprintf("request-%d.json", id)), body, 0o644)
			}
			if err != nil {
				out.printTo(os.Stderr, "dump request %d: %v\n", id, err)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		out.printf("request %d %d %s %s\n", id, time.Now().UnixNano(), r.Method, r.URL.Path)
		defer func() { out.printf("done %d %d\n", id, time.Now().UnixNano()) }()
		h.ServeHTTP(w, r)
	})
}
