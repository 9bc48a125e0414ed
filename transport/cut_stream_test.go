package transport_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
	"github.com/agentcli/agent/transport/ws"
)

// markingDecoder is the Responses decoder that notes the bytes allocated
// so far (TotalAlloc) once an item is done, then lets the server go on
// (release), and again when a response.completed frame is handed over:
// what reading that frame allocated.
type markingDecoder struct {
	release         func()
	done, completed uint64
}

func (m *markingDecoder) NewStream() transport.StreamDecoder {
	return &markingStream{&transport.FrameDecoder{}, m}
}

type markingStream struct {
	*transport.FrameDecoder
	m *markingDecoder
}

func (s *markingStream) Decode(name, data string, emit func(transport.Event) bool) error {
	var ms runtime.MemStats
	if strings.Contains(data[:min(len(data), 64)], `"response.completed"`) {
		runtime.ReadMemStats(&ms)
		s.m.completed = ms.TotalAlloc
	}
	isDone := false
	err := s.FrameDecoder.Decode(name, data, func(ev transport.Event) bool {
		_, isDone = ev.(transport.OutputItemDone)
		return emit(ev)
	})
	if isDone {
		runtime.ReadMemStats(&ms)
		s.m.done = ms.TotalAlloc
		s.m.release()
	}
	return err
}

// TestCompletedListingAnItemAgainIsCutAsRead: a response.completed that
// lists again a 4 MiB message the stream delivered (as OpenAI does) is
// read, over SSE and WebSocket, without the message's bytes being held:
// the buffers it arrives in are read into again as it is cut, so reading
// the frame allocates what the server sends it with (its copy over
// WebSocket) and little more. Held until the frame was whole, the pieces
// were a third copy of the item beside its Raw and its decoded text
// (3.0× the event in bench/run.sh's OpenAI-shaped scenarios; issue 42);
// they cost 4 MiB more here. The message still arrives whole, once.
func TestCompletedListingAnItemAgainIsCutAsRead(t *testing.T) {
	const size = 4 << 20 // 64 pieces of the transports' 64 KiB
	text := strings.Repeat(`lorem \"ipsum\" `, size/16)
	// The id first, as OpenAI writes items (and as they are recognised).
	item := `{"id":"m1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}`
	tail := `{"id":"m2","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"tail","annotations":[]}]}`
	script := rt.Script{rt.Stream(rt.Created("r"),
		rt.EventData(`{"type":"response.output_item.done","output_index":0,"item":`+item+`}`), rt.Stall(),
		rt.EventData(`{"type":"response.completed","response":{"id":"r","status":"completed","output":[`+item+`,`+tail+`],"usage":null}}`))}
	for _, wire := range []string{"sse", "websocket"} {
		t.Run(wire, func(t *testing.T) {
			srv := rt.NewServer(t, script)
			dec := &markingDecoder{release: srv.Release}
			var s transport.Stream
			var err error
			server := 0 // what the server allocates to send the frame
			if wire == "sse" {
				s, err = sse.New(&sse.Options{HTTPClient: srv.Client(), Decoder: dec}).Open(t.Context(),
					&transport.Request{URL: srv.URL + "/responses", Body: []byte(`{"model":"m"}`)})
			} else {
				server = size
				var c *ws.Conn
				c, err = ws.Dial(t.Context(), srv.URL+"/responses", http.Header{}, &ws.Options{HTTPClient: srv.Client(), Decoder: dec})
				if err == nil {
					defer c.Close()
					s, err = c.Open(t.Context(), []byte(`{"model":"m"}`))
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var texts []int
			for ev := range s.Events() {
				switch ev := ev.(type) {
				case transport.OutputItemDone:
					texts = append(texts, len(ev.Item.Text()))
				case transport.Completed:
					for _, it := range ev.Output {
						texts = append(texts, len(it.Text()))
					}
				}
			}
			if s.Err() != nil || len(texts) != 2 || texts[0] != len(text)-size/8 || texts[1] != 4 {
				t.Fatalf("items of %v bytes, %v; want the %d-byte message once, then the 4-byte one", texts, s.Err(), len(text)-size/8)
			}
			alloc := int64(dec.completed) - int64(dec.done)
			t.Logf("reading the completed frame allocated %.1f MiB", float64(alloc)/(1<<20))
			if alloc > int64(server+size/4) {
				t.Errorf("reading the completed frame allocated %.1f MiB; want at most %.1f (the server's %d MiB, and not the 4 MiB message again)",
					float64(alloc)/(1<<20), float64(server+size/4)/(1<<20), server>>20)
			}
		})
	}
}
