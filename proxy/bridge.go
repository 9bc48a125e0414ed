package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// A bridge serves a Responses API client (Codex) from an upstream that
// speaks another wire (Chat Completions, Anthropic's Messages API): the
// request's items become that wire's request, written by agent's own
// encoder for it, and the upstream's stream, read by agent's own
// decoder, becomes the Responses stream the client reads. The history
// stays the client's: what the proxy sends upstream is rebuilt from each
// request, nothing is kept between them.
type bridge struct {
	wire modelclient.Wire
	path string // the wire's endpoint under the upstream root
	// outputLimit is [Options].OutputLimit; nil: unknown.
	outputLimit func(model string) int64
}

// newBridge returns the bridge to an upstream speaking wire_api api, or
// nil when the upstream speaks the Responses API (requests are then
// relayed byte for byte). outputLimit may be nil.
func newBridge(api string, outputLimit func(string) int64) (*bridge, error) {
	if api == "" || api == provider.WireAPIResponses {
		return nil, nil
	}
	w, err := modelclient.WireFor(api)
	if err != nil {
		return nil, err
	}
	return &bridge{wire: w, path: w.Encoder.URL(provider.Info{}), outputLimit: outputLimit}, nil
}

// responsesRequest is what a bridge reads of a Responses request.
type responsesRequest struct {
	Model             string            `json:"model"`
	Instructions      string            `json:"instructions"`
	Input             json.RawMessage   `json:"input"`
	Tools             []json.RawMessage `json:"tools"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	Stream            bool              `json:"stream"`
	ServiceTier       string            `json:"service_tier"`
	Reasoning         *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	Text *struct {
		Verbosity string `json:"verbosity"`
		Format    *struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// errNotStreamed: the bridge translates streamed requests only.
var errNotStreamed = errors.New(`agent proxy bridges streamed Responses requests only ("stream": true)`)

// body translates a Responses request body into the upstream wire's.
func (b *bridge) body(in []byte) ([]byte, error) {
	var rq responsesRequest
	if err := json.Unmarshal(in, &rq); err != nil {
		return nil, fmt.Errorf("the request is not a Responses request: %w", err)
	}
	if !rq.Stream {
		return nil, errNotStreamed
	}
	items, err := inputItems(rq.Input)
	if err != nil {
		return nil, err
	}
	p := &modelclient.Prompt{Instructions: rq.Instructions, Input: items, Tools: rq.Tools, ParallelToolCalls: true}
	if rq.ParallelToolCalls != nil {
		p.ParallelToolCalls = *rq.ParallelToolCalls
	}
	st := modelclient.Settings{Model: rq.Model, ServiceTier: rq.ServiceTier}
	if r := rq.Reasoning; r != nil {
		st.ReasoningEffort, st.ReasoningSummary = r.Effort, r.Summary
	}
	if t := rq.Text; t != nil {
		st.Verbosity = t.Verbosity
		if t.Format != nil && t.Format.Type == "json_schema" {
			p.OutputSchema = t.Format.Schema
		}
	}
	call := &modelclient.Call{Prompt: p, Settings: st}
	if b.outputLimit != nil {
		call.MaxOutputTokens = b.outputLimit(rq.Model)
	}
	return b.wire.Encoder.Body(call)
}

// inputItems reads a request's input: a string (one user message) or a
// list of items, where a message may leave out its type and give its
// content as a string.
func inputItems(raw json.RawMessage) ([]transport.Item, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []transport.Item{transport.UserMessage(text)}, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("input: not a string or a list of items: %w", err)
	}
	items := make([]transport.Item, 0, len(list))
	for i, m := range list {
		if _, ok := m["type"]; !ok && m["role"] != nil {
			m["type"] = json.RawMessage(`"message"`)
		}
		var role, content string
		_ = json.Unmarshal(m["role"], &role)
		if json.Unmarshal(m["content"], &content) == nil {
			part := "input_text"
			if role == "assistant" {
				part = "output_text"
			}
			m["content"], _ = json.Marshal([]map[string]string{{"type": part, "text": content}})
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		it, err := transport.ParseItemOwned(b)
		if err != nil {
			return nil, fmt.Errorf("input item %d: %w", i+1, err)
		}
		items = append(items, it)
	}
	return items, nil
}

// header is h as the upstream wire wants it (the key as x-api-key for
// Anthropic's).
func (b *bridge) header(h http.Header) http.Header { return b.wire.Encoder.Header(h) }

// relay answers the client with the upstream's stream read by the wire's
// decoder and written as the Responses API's events. A stream that fails
// in the upstream's words ends with response.failed (or
// response.incomplete) in the Responses API's; one that is cut, or ends
// before its wire's end, cuts the client's response, so it never looks
// complete.
func (b *bridge) relay(p *Proxy, w http.ResponseWriter, r *http.Request, a attempt, res *result) {
	defer a.resp.Body.Close()
	res.status = a.resp.StatusCode
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set(HeaderProxy, "1")
	h.Set(HeaderAttempts, strconv.Itoa(res.attempts))
	w.WriteHeader(http.StatusOK)
	var body io.Reader = bytes.NewReader(a.head)
	if a.readErr != nil {
		body = io.MultiReader(body, errReader{a.readErr})
	} else {
		body = io.MultiReader(body, a.resp.Body)
	}
	out := &responsesWriter{w: w}
	dec := b.wire.Decoder.NewStream()
	for ev, err := range gosse.Read(body, &gosse.ReadConfig{MaxEventSize: transport.MaxEventSize}) {
		if err != nil {
			p.upstreamBroke(r, res, err)
			return
		}
		derr := dec.Decode(ev.Type, ev.Data, out.emit)
		if out.err != nil {
			p.lostClient(res, out.err)
			return
		}
		if derr != nil {
			res.final = true
			res.failure = modelclient.Classify(derr)
			if out.fail(derr); out.err != nil {
				p.lostClient(res, out.err)
			}
			return
		}
		if out.done {
			res.final = true
			return
		}
	}
	p.upstreamBroke(r, res, transport.Incomplete(dec))
}

// errReader fails every read with err: the read error that ended an
// attempt's head, after the head.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// responsesWriter writes transport events as the Responses API's stream.
type responsesWriter struct {
	w    http.ResponseWriter
	id   string // the response's id
	seq  int
	next int            // the next output index
	open map[string]int // items announced with output_item.added, by id
	err  error          // the first failed write: the client is gone
	done bool           // response.completed was written
}

// emit writes ev; it reports whether the client still reads.
func (o *responsesWriter) emit(ev transport.Event) bool {
	switch ev := ev.(type) {
	case transport.Created:
		o.id = ev.ResponseID
		if o.id == "" || !strings.HasPrefix(o.id, "resp") {
			o.id = "resp_" + strings.TrimPrefix(o.id, "msg_")
		}
		o.write("response.created", map[string]any{"response": o.response("in_progress")})
	case transport.TextDelta:
		i := o.announce(ev.ItemID, map[string]any{"type": "message", "id": ev.ItemID, "role": "assistant", "status": "in_progress", "content": []any{}})
		o.write("response.output_text.delta", map[string]any{"item_id": ev.ItemID, "output_index": i, "content_index": 0, "delta": ev.Delta})
	case transport.ReasoningSummaryDelta:
		i := o.announce(ev.ItemID, map[string]any{"type": "reasoning", "id": ev.ItemID, "summary": []any{}})
		o.write("response.reasoning_summary_text.delta", map[string]any{"item_id": ev.ItemID, "output_index": i, "summary_index": ev.SummaryIndex, "delta": ev.Delta})
	case transport.ReasoningContentDelta:
		i := o.announce(ev.ItemID, map[string]any{"type": "reasoning", "id": ev.ItemID, "summary": []any{}})
		o.write("response.reasoning_text.delta", map[string]any{"item_id": ev.ItemID, "output_index": i, "content_index": ev.ContentIndex, "delta": ev.Delta})
	case transport.OutputItemDone:
		o.itemDone(ev.Item)
	case transport.Completed:
		resp := o.response("completed")
		if u := ev.Usage; u != nil {
			resp["usage"] = map[string]any{
				"input_tokens": u.InputTokens, "input_tokens_details": map[string]int64{"cached_tokens": u.CachedInputTokens},
				"output_tokens": u.OutputTokens, "output_tokens_details": map[string]int64{"reasoning_tokens": u.ReasoningOutputTokens},
				"total_tokens": u.TotalTokens,
			}
		}
		o.write("response.completed", map[string]any{"response": resp})
		o.done = o.err == nil
	}
	return o.err == nil && !o.done
}

// announce writes output_item.added for an item the first time a delta
// of it comes, and returns its output index.
func (o *responsesWriter) announce(id string, item map[string]any) int {
	if i, ok := o.open[id]; ok {
		return i
	}
	if o.open == nil {
		o.open = map[string]int{}
	}
	i := o.next
	o.next++
	o.open[id] = i
	o.write("response.output_item.added", map[string]any{"output_index": i, "item": item})
	return i
}

// itemDone writes output_item.done for it, with the id its deltas had
// and a status, as the Responses API sends items.
func (o *responsesWriter) itemDone(it transport.Item) {
	i, ok := o.open[it.ID]
	if !ok {
		i = o.next
		o.next++
	}
	var m map[string]json.RawMessage
	raw := json.RawMessage(it.Raw)
	if json.Unmarshal(it.Raw, &m) == nil {
		if _, has := m["id"]; !has && it.ID != "" {
			m["id"], _ = json.Marshal(it.ID)
		}
		if _, has := m["status"]; !has && it.Type != "reasoning" {
			m["status"] = json.RawMessage(`"completed"`)
		}
		raw, _ = json.Marshal(m)
	}
	o.write("response.output_item.done", map[string]any{"output_index": i, "item": raw})
}

// fail ends the stream with the Responses API's form of err: a cut
// response is response.incomplete; an error response.failed, its code
// one the client's classifier knows for what it means.
func (o *responsesWriter) fail(err error) {
	var inc *transport.IncompleteError
	if errors.As(err, &inc) {
		resp := o.response("incomplete")
		resp["incomplete_details"] = map[string]string{"reason": inc.Reason}
		o.write("response.incomplete", map[string]any{"response": resp})
		return
	}
	f := modelclient.Classify(err)
	code := f.ResponsesCode()
	msg := f.Message
	if msg == "" {
		msg = err.Error()
	}
	resp := o.response("failed")
	resp["error"] = map[string]string{"code": code, "message": msg}
	o.write("response.failed", map[string]any{"response": resp})
}

// response is the response object of a lifecycle event.
func (o *responsesWriter) response(status string) map[string]any {
	return map[string]any{"id": o.id, "object": "response", "status": status, "output": []any{}}
}

// write writes one event and flushes it.
func (o *responsesWriter) write(typ string, fields map[string]any) {
	if o.err != nil {
		return
	}
	fields["type"] = typ
	fields["sequence_number"] = o.seq
	o.seq++
	data, err := json.Marshal(fields)
	if err != nil {
		o.err = err
		return
	}
	if _, err := fmt.Fprintf(o.w, "event: %s\ndata: %s\n\n", typ, data); err != nil {
		o.err = err
		return
	}
	o.err = flush(o.w)
}
