// Package demo is the built-in offline provider: a scripted Responses server
// that runs in-process on loopback, so `agent exec` does something real with
// no API key and no network. Every turn it deliberately fails twice before
// answering (an HTTP 500, then a stream cut mid-answer), so a new user sees
// both retry layers work and the half-sent text retracted, not repeated.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	gosse "github.com/tmaxmax/go-sse"
)

// Options configure a [Server].
type Options struct {
	// Pace is the pause between streamed words, so the streaming is
	// visible in a terminal. Zero streams at full speed.
	Pace time.Duration
	// Faults makes every turn fail twice before answering (default on in
	// [Start]; tests may turn it off).
	Faults bool
}

// Server is the demo model. It is safe for concurrent use.
type Server struct {
	opts Options
	mu   sync.Mutex
	seen map[string]int // attempts per conversation (keyed by its input)
}

// New returns a demo server.
func New(opts Options) *Server {
	return &Server{opts: opts, seen: map[string]int{}}
}

// Start serves a demo [Server] on a loopback port until ctx ends. It
// returns the base URL to use as the provider's base_url, and a function
// that stops the server and waits for it.
func Start(ctx context.Context, opts Options) (baseURL string, stop func(), err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("demo: listen on loopback: %w", err)
	}
	srv := &http.Server{Handler: New(opts), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns when closed
	}()
	stop = func() {
		_ = srv.Close()
		<-done
	}
	return "http://" + ln.Addr().String() + "/v1", stop, nil
}

type request struct {
	Input []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
}

// ServeHTTP answers POST .../responses.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, `{"error":{"message":"demo: only POST /responses is served"}}`, http.StatusNotFound)
		return
	}
	var req request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"demo: bad JSON body"}}`, http.StatusBadRequest)
		return
	}
	prompt := ""
	for _, it := range req.Input {
		if it.Type == "message" && it.Role == "user" {
			prompt = ""
			for _, c := range it.Content {
				prompt += c.Text
			}
		}
	}
	key := fmt.Sprint(len(req.Input), prompt)
	s.mu.Lock()
	s.seen[key]++
	n := s.seen[key]
	s.mu.Unlock()

	words := answerWords(prompt)
	switch {
	case s.opts.Faults && n == 1:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"type":"server_error","message":"demo: simulated server error (the first attempt of every turn fails on purpose)"}}`))
	case s.opts.Faults && n == 2:
		s.stream(r.Context(), w, words[:min(len(words), 6)], false)
	default:
		s.stream(r.Context(), w, words, true)
	}
}

// stream writes a reply; when complete is false it cuts the connection
// after the words, before response.completed.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, words []string, complete bool) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	respID := fmt.Sprintf("resp_demo_%d", time.Now().UnixNano())
	itemID := "msg_" + respID
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		m := &gosse.Message{Type: gosse.Type(v["type"].(string))}
		m.AppendData(string(b))
		_, _ = m.WriteTo(w)
		if fl != nil {
			fl.Flush()
		}
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	send(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{
		"type": "message", "role": "assistant", "id": itemID, "content": []any{},
	}})
	for _, word := range words {
		if s.opts.Pace > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.opts.Pace):
			}
		}
		send(map[string]any{"type": "response.output_text.delta", "item_id": itemID, "output_index": 0, "content_index": 0, "delta": word})
	}
	if !complete {
		panic(http.ErrAbortHandler) // cut the connection mid-stream
	}
	text := strings.Join(words, "")
	send(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": map[string]any{
		"type": "message", "role": "assistant", "id": itemID, "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
	}})
	send(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "status": "completed",
		"usage": map[string]any{
			"input_tokens": 20 + len(text)/8, "output_tokens": len(words), "total_tokens": 20 + len(text)/8 + len(words),
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		},
	}})
}

// answerWords builds the demo's answer, split into streamable words.
func answerWords(prompt string) []string {
	p := strings.TrimSpace(prompt)
	if p == "" {
		p = "(an empty prompt)"
	}
	if len(p) > 200 {
		p = p[:200] + "…"
	}
	nWords := len(strings.FieldsFunc(prompt, unicode.IsSpace))
	text := fmt.Sprintf("[demo] This answer comes from agent's built-in offline demo model, so no API key "+
		"or network was used. You said: %q (%d words). Before this reply arrived, the demo server failed "+
		"twice on purpose: it answered the first request with HTTP 500, which agent retried after a short "+
		"backoff, and it cut the second stream in the middle of a sentence, so agent retracted the partial "+
		"text and asked again. What you are reading was printed exactly once. To talk to a real model, "+
		"export OPENAI_API_KEY and run: agent exec -c model_provider=openai \"your prompt\"", p, nWords)
	var out []string
	for _, f := range strings.SplitAfter(text, " ") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
