package transport

// A Decoder is the reading half of a wire format: it turns the frames of
// a stream (an SSE event, a WebSocket text message) into [Event]s. The
// transports carry bytes and take the Decoder as a value
// (sse.Options.Decoder, ws.Options.Decoder); modelclient chooses it with
// the wire's encoder by the provider's wire_api. [ResponsesDecoder] is the
// Responses API's.
//
// A Decoder is safe for concurrent use; the [StreamDecoder] it makes for
// each stream is not, and holds what a wire must remember across one
// stream's frames (Responses: the items delivered, which the completed
// response leaves out; Chat Completions: tool-call fragments assembled by
// index).
type Decoder interface {
	// NewStream returns the decoder of one stream's frames, in order.
	NewStream() StreamDecoder
}

// A StreamDecoder decodes the frames of one stream. A transport asks
// first whether a frame can be dropped before it is copied out of its
// buffers (Ignored, IgnoredPieces), then hands the frame over whole
// (Decode). A frame dropped by Ignored or IgnoredPieces still counts as
// progress for the liveness timers.
type StreamDecoder interface {
	// Ignored reports whether a named frame (an SSE event with an event
	// name: name is not "") can be dropped unread, from prefix, the
	// beginning of its data. It must not drop a frame whose whole data
	// Decode would turn into an event or an error.
	Ignored(name string, prefix []byte) bool
	// IgnoredPieces reports whether an unnamed frame (a WebSocket
	// message) held whole in pieces, in order as read, can be dropped
	// unread, under the same rule as Ignored.
	IgnoredPieces(pieces [][]byte) bool
	// Decode decodes one frame: name is its event name ("" for none),
	// data its whole data. It calls emit with each event the frame
	// yields, in order (none: the frame is skipped; several: a wire whose
	// one frame ends several items), and stops when emit returns false.
	// An error ends the stream (a failed response, an error event, an
	// undecodable final frame); the events emitted before it stand.
	// Events may refer to data (a delta's text is a substring of it):
	// data must not change afterwards.
	Decode(name, data string, emit func(Event) bool) error
}

// ResponsesDecoder is the Responses API's [Decoder]: each stream gets a
// [FrameDecoder], which leaves out of the completed response the items
// the stream delivered, and drops the frames of types not modelled
// ([Ignored], [IgnoredPieces]) before they are copied. The zero value is
// ready to use.
type ResponsesDecoder struct{}

// NewStream returns a fresh [FrameDecoder].
func (ResponsesDecoder) NewStream() StreamDecoder { return &FrameDecoder{} }

var _ StreamDecoder = (*FrameDecoder)(nil)
