package sse_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/sse"
)

// wordsDecoder is a wire of its own, not the Responses API's, as a second
// wire's decoder would be: each frame's data is words, each word a delta
// of an item numbered per stream; "[DONE]" completes the stream, "fail"
// is an error; frames named "noise" are dropped unread. It records what
// reached it.
type wordsDecoder struct {
	streams int
	decoded []string // every frame Decode was given, "name:data"
}

func (w *wordsDecoder) NewStream() transport.StreamDecoder {
	w.streams++
	return &wordsStream{w: w, n: w.streams}
}

type wordsStream struct {
	w      *wordsDecoder
	n      int // the stream's number
	frames int // frames decoded so far: state per stream
}

func (s *wordsStream) Ignored(name string, _ []byte) bool { return name == "noise" }
func (s *wordsStream) IgnoredPieces([][]byte) bool        { return false }

func (s *wordsStream) Decode(name, data string, emit func(transport.Event) bool) error {
	s.w.decoded = append(s.w.decoded, name+":"+data)
	s.frames++
	switch data {
	case "[DONE]":
		emit(transport.Completed{ResponseID: fmt.Sprintf("s%d", s.n)})
		return nil
	case "fail":
		return errors.New("the wire says it failed")
	}
	for w := range strings.FieldsSeq(data) {
		if !emit(transport.TextDelta{ItemID: fmt.Sprintf("s%d.f%d", s.n, s.frames), Delta: w}) {
			return nil
		}
	}
	return nil
}

func wordEvents(s transport.Stream, stopAfter int) ([]string, error) {
	defer s.Close()
	var got []string
	for ev := range s.Events() {
		switch ev := ev.(type) {
		case transport.TextDelta:
			got = append(got, ev.ItemID+"="+ev.Delta)
		case transport.Completed:
			got = append(got, "completed:"+ev.ResponseID)
		default:
			got = append(got, fmt.Sprintf("%T", ev))
		}
		if len(got) == stopAfter {
			break
		}
	}
	return got, s.Err()
}

// TestTransportUsesItsDecoder: the SSE transport carries bytes; what the
// frames mean is the decoder's it was given: a frame that is not the
// Responses API's becomes the decoder's events, several from one frame,
// each stream with a decoder of its own; a frame the decoder ignores
// never reaches it; its error ends the stream; its Completed ends it
// without waiting for EOF.
func TestTransportUsesItsDecoder(t *testing.T) {
	dec := &wordsDecoder{}
	open := func(body string) transport.Stream {
		t.Helper()
		tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: bodyTransport(body)}, Decoder: dec})
		s, err := tr.Open(t.Context(), &transport.Request{URL: "http://wire.invalid/words", Body: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	got, err := wordEvents(open("data: hello wire\n\nevent: noise\ndata: dropped\n\ndata: again\n\ndata: [DONE]\n\ndata: after\n\n"), 0)
	if err != nil {
		t.Fatalf("Err = %v", err)
	}
	want := []string{"s1.f1=hello", "s1.f1=wire", "s1.f2=again", "completed:s1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{":hello wire", ":again", ":[DONE]"}, dec.decoded); diff != "" {
		t.Errorf("frames the decoder saw (-want +got):\n%s", diff)
	}

	dec.decoded = nil
	got, err = wordEvents(open("data: one two\n\ndata: fail\n\ndata: [DONE]\n\n"), 0)
	if err == nil || err.Error() != "the wire says it failed" {
		t.Errorf("Err = %v; want the decoder's error", err)
	}
	if diff := cmp.Diff([]string{"s2.f1=one", "s2.f1=two"}, got); diff != "" {
		t.Errorf("events before the error (-want +got):\n%s", diff)
	}

	// A consumer that stops in the middle of a frame's events.
	got, _ = wordEvents(open("data: a b c\n\ndata: [DONE]\n\n"), 2)
	if diff := cmp.Diff([]string{"s3.f1=a", "s3.f1=b"}, got); diff != "" {
		t.Errorf("events until the stop (-want +got):\n%s", diff)
	}

	// Without a decoder the transport reads the Responses API: these
	// frames mean nothing there.
	tr := sse.New(&sse.Options{HTTPClient: &http.Client{Transport: bodyTransport("data: hello wire\n\ndata: [DONE]\n\n")}})
	s, err := tr.Open(t.Context(), &transport.Request{URL: "http://wire.invalid/responses", Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := wordEvents(s, 0); len(got) != 0 || !errors.Is(err, transport.ErrIncomplete) {
		t.Errorf("Responses decoder: events %v, Err %v; want none, incomplete", got, err)
	}
}
