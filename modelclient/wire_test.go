package modelclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// TestWireChosenByWireAPI: wire_api "responses" (and "" in a provider
// built by hand) is the Responses API, served over WebSocket too; any
// other value is an error naming it, and a client for it sends nothing.
func TestWireChosenByWireAPI(t *testing.T) {
	for _, api := range []string{"", provider.WireAPIResponses} {
		w, err := modelclient.WireFor(api)
		if err != nil || w.API != provider.WireAPIResponses || !w.WebSocket {
			t.Errorf("WireFor(%q) = %+v, %v; want the Responses wire", api, w, err)
		}
		if _, ok := w.Decoder.(transport.ResponsesDecoder); !ok {
			t.Errorf("WireFor(%q).Decoder = %T; want transport.ResponsesDecoder", api, w.Decoder)
		}
		if u := w.Encoder.URL(provider.Info{BaseURL: "http://h/v1/", QueryParams: map[string]string{"b": "2", "a": "1"}}); u != "http://h/v1/responses?a=1&b=2" {
			t.Errorf("Responses URL = %q", u)
		}
	}

	w, err := modelclient.WireFor(provider.WireAPIChat)
	if err != nil || w.API != provider.WireAPIChat || w.WebSocket {
		t.Errorf("WireFor(chat) = %+v, %v; want the Chat Completions wire, without WebSocket", w, err)
	}
	if u := w.Encoder.URL(provider.Info{BaseURL: "http://h/v1/", QueryParams: map[string]string{"a": "1"}}); u != "http://h/v1/chat/completions?a=1" {
		t.Errorf("Chat URL = %q", u)
	}

	w, err = modelclient.WireFor(provider.WireAPIAnthropic)
	if err != nil || w.API != provider.WireAPIAnthropic || w.WebSocket {
		t.Errorf("WireFor(anthropic) = %+v, %v; want the Messages wire, without WebSocket", w, err)
	}
	if u := w.Encoder.URL(provider.Info{BaseURL: "http://h/v1/"}); u != "http://h/v1/messages" {
		t.Errorf("Anthropic URL = %q", u)
	}

	_, err = modelclient.WireFor("grpc")
	var we *modelclient.WireError
	if !errors.As(err, &we) || we.API != "grpc" || !strings.Contains(err.Error(), `"grpc"`) {
		t.Errorf("WireFor(grpc) = %v; want a WireError naming it", err)
	}
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "never")})
	p := provider.Custom("test")
	p.BaseURL, p.WireAPI = srv.URL, "grpc"
	c := modelclient.New(modelclient.Options{Provider: p, HTTPClient: srv.Client()})
	defer c.Close()
	o := c.NewTurn(modelclient.TurnOptions{}).Sample(t.Context(), modelclient.Sampling{
		Prompt: func() *modelclient.Prompt { return &modelclient.Prompt{} }, Consume: consume,
	})
	if o == nil || !errors.As(o.Failure.Err, &we) || o.Failure.Retryable() || len(srv.Requests()) != 0 {
		t.Errorf("outcome %+v, %d requests; want the wire error, not retried, nothing sent", o, len(srv.Requests()))
	}
}

// TestResponsesEncoder: the Responses body carries the turn's settings,
// the session's id as prompt_cache_key and, chained, the previous
// response's id.
func TestResponsesEncoder(t *testing.T) {
	body, err := modelclient.Responses().Encoder.Body(&modelclient.Call{
		Prompt:             &modelclient.Prompt{Instructions: "be brief", Input: []transport.Item{transport.UserMessage("hi")}},
		Settings:           modelclient.Settings{Model: "m2", ReasoningEffort: "high", ReasoningSummary: "auto", Verbosity: "low", ServiceTier: "fast"},
		SessionID:          "sess-1",
		PreviousResponseID: "resp-9",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	want := map[string]any{
		"model": "m2", "instructions": "be brief", "prompt_cache_key": "sess-1", "previous_response_id": "resp-9",
		"service_tier": "priority", "reasoning": map[string]any{"effort": "high", "summary": "auto"},
		"text": map[string]any{"verbosity": "low"}, "stream": true, "store": false, "tool_choice": "auto",
		"parallel_tool_calls": false, "tools": []any{}, "include": []any{"reasoning.encrypted_content"},
		"input": []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// wordsWire is a second wire, as Chat Completions or Anthropic Messages
// will be: POST {base}/words with a version header and the key in a
// header of its own, a body of its own, and a stream whose frames are
// words (each word a delta), "[DONE]" its end.
func wordsWire() modelclient.Wire {
	return modelclient.Wire{API: "words", Encoder: wordsEncoder{}, Decoder: wordsDecoder{}}
}

type wordsEncoder struct{}

func (wordsEncoder) URL(p provider.Info) string { return p.BaseURL + "/words" }

func (wordsEncoder) Header(h http.Header) http.Header {
	h = h.Clone()
	h.Set("Words-Version", "1")
	h.Set("X-Words-Key", strings.TrimPrefix(h.Get("Authorization"), "Bearer "))
	h.Del("Authorization")
	return h
}

func (wordsEncoder) Body(r *modelclient.Call) ([]byte, error) {
	var said []string
	for _, it := range r.Prompt.Input {
		said = append(said, it.Text())
	}
	return json.Marshal(map[string]any{"model": r.Settings.Model, "session": r.SessionID, "prev": r.PreviousResponseID, "said": said})
}

type wordsDecoder struct{}

func (wordsDecoder) NewStream() transport.StreamDecoder { return &wordsStream{} }

type wordsStream struct{ n int }

func (*wordsStream) Ignored(string, []byte) bool { return false }
func (*wordsStream) IgnoredPieces([][]byte) bool { return false }

func (s *wordsStream) Decode(_, data string, emit func(transport.Event) bool) error {
	if data == "[DONE]" {
		emit(transport.Completed{})
		return nil
	}
	for w := range strings.FieldsSeq(data) {
		s.n++
		if !emit(transport.TextDelta{ItemID: "w", Delta: w}) {
			return nil
		}
	}
	return nil
}

// bearer is a credential sent as Authorization: Bearer.
type bearer string

func (b bearer) Apply(_ context.Context, h http.Header) error {
	h.Set("Authorization", "Bearer "+string(b))
	return nil
}

// TestClientSpeaksItsWire: a client given another wire sends what its
// encoder writes (URL, its headers over the client's, its body from the
// prompt, the turn's settings and the session id) and reads the answer
// with its decoder; a provider that serves WebSocket is still asked over
// HTTPS, since the wire has no WebSocket form.
func TestClientSpeaksItsWire(t *testing.T) {
	type request struct {
		path string
		h    http.Header
		body map[string]any
	}
	var (
		mu   sync.Mutex
		reqs []request
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		reqs = append(reqs, request{r.URL.Path, r.Header, body})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: hello there\n\ndata: again\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p := provider.Custom("test")
	p.BaseURL, p.SupportsWebSockets = srv.URL, true
	c := modelclient.NewWithWire(modelclient.Options{Provider: p, HTTPClient: srv.Client(), SessionID: "sess-7", Auth: bearer("k")}, wordsWire())
	defer c.Close()
	if c.WebSocketActive() {
		t.Error("WebSocketActive on a wire without WebSocket")
	}
	var got []string
	o := c.NewTurn(modelclient.TurnOptions{Settings: modelclient.Settings{Model: "m3"}}).Sample(t.Context(), modelclient.Sampling{
		Prompt: func() *modelclient.Prompt {
			return &modelclient.Prompt{Input: []transport.Item{transport.UserMessage("hi"), transport.UserMessage("there")}}
		},
		Consume: func(_ context.Context, s transport.Stream) error {
			for ev := range s.Events() {
				switch ev := ev.(type) {
				case transport.TextDelta:
					got = append(got, ev.Delta)
				case transport.Completed:
					return nil
				}
			}
			return s.Err()
		},
	})
	if o != nil {
		t.Fatalf("outcome %+v", o)
	}
	if diff := cmp.Diff([]string{"hello", "there", "again"}, got); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want one POST", len(reqs))
	}
	r := reqs[0]
	if r.path != "/words" || r.h.Get("Words-Version") != "1" || r.h.Get("X-Words-Key") != "k" || r.h.Get("Authorization") != "" ||
		r.h.Get("Session-Id") != "sess-7" {
		t.Errorf("request %s, headers %v; want /words with the wire's headers and the session's", r.path, r.h)
	}
	want := map[string]any{"model": "m3", "session": "sess-7", "prev": "", "said": []any{"hi", "there"}}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}
