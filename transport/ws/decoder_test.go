package ws_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/ws"
)

// shoutDecoder reads the Responses API its own way: it drops every text
// delta unread (IgnoredPieces), and after each item done emits an event
// of its own; the rest as the Responses decoder does.
type shoutDecoder struct{ streams int }

func (d *shoutDecoder) NewStream() transport.StreamDecoder {
	d.streams++
	return shoutStream{transport.ResponsesDecoder{}.NewStream()}
}

type shoutStream struct{ transport.StreamDecoder }

func (shoutStream) IgnoredPieces(pieces [][]byte) bool {
	return strings.Contains(string(pieces[0]), `"response.output_text.delta"`)
}

func (s shoutStream) Decode(name, data string, emit func(transport.Event) bool) error {
	return s.StreamDecoder.Decode(name, data, func(ev transport.Event) bool {
		if !emit(ev) {
			return false
		}
		if d, ok := ev.(transport.OutputItemDone); ok {
			return emit(transport.TextDelta{Delta: strings.ToUpper(d.Item.Text())})
		}
		return true
	})
}

// TestConnUsesItsDecoder: the WebSocket transport hands each message to
// the decoder it was given: the messages it ignores are never seen, the
// events it adds are, one decoder per stream.
func TestConnUsesItsDecoder(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one two"), rt.Reply("r2", "m2", "three")})
	dec := &shoutDecoder{}
	tr := ws.NewTransport(&ws.Options{HTTPClient: srv.Client(), Decoder: dec})
	defer tr.Close()
	for i, want := range [][]string{
		{"created", "done:one two", "delta:ONE TWO", "completed:r1"},
		{"created", "done:three", "delta:THREE", "completed:r2"},
	} {
		s, err := tr.Open(t.Context(), &transport.Request{URL: srv.URL + "/responses", Body: []byte(`{"model":"m","input":[]}`)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(s)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d events (-want +got):\n%s", i, diff)
		}
	}
	if dec.streams != 2 {
		t.Errorf("decoder made %d streams; want one per request (2)", dec.streams)
	}
	if n := len(srv.Handshakes()); n != 1 {
		t.Errorf("%d handshakes; want one connection for both", n)
	}
}
