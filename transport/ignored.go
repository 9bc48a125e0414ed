package transport

import "bytes"

// modelled are the event types [Decode] turns into an event of their own
// (decodeGeneral decodes no other type, so a case added there without
// its type here is never reached); a payload of any other type is
// [Unknown], which no consumer reads, and [Ignored] drops it.
var modelled = map[string]bool{
	"response.created": true, "response.output_item.added": true, "response.output_item.done": true,
	"response.output_text.delta": true, "response.refusal.delta": true, "response.reasoning_summary_text.delta": true,
	"response.reasoning_summary_part.added": true, "response.reasoning_text.delta": true,
	"response.custom_tool_call_input.delta": true,
	"response.completed":                    true, "response.failed": true, "response.incomplete": true, "error": true,
}

// Ignored reports whether a frame can be dropped unread, before it is
// copied out of a transport's buffers: its data's first member is a
// "type" this package does not model, so it decodes to [Unknown], or,
// malformed, is skipped. A 10 MiB function_call_arguments.delta or .done,
// output_text.done or content_part.done (which repeat what the deltas and
// the item carry) then costs no copy.
//
// typ is the SSE event name. When it is a name, data need only be the
// frame's beginning; a frame named response.completed is never ignored
// (malformed, it is an error). When typ is "" (WebSocket, an unnamed SSE
// event) data must be the whole frame: one that mentions
// "response.completed" is not ignored, as [DecodeFrame] treats it as
// final when malformed. A frame whose type is not its first member, or
// is cut by the prefix, is not ignored. A payload naming two types is
// read by its first (encoding/json would take the last; the reference
// client refuses it).
func Ignored(typ string, data []byte) bool {
	switch typ {
	case "response.completed":
		return false
	case "":
		return IgnoredPieces([][]byte{data})
	}
	return unmodelledFirst(data)
}

// IgnoredPieces is [Ignored] for an unnamed frame (a WebSocket message)
// held whole in pieces, in order, as it was read.
func IgnoredPieces(pieces [][]byte) bool {
	const final = `"response.completed"`
	var seam []byte // the end of one piece and the start of the next
	for i, p := range pieces {
		if bytes.Contains(p, []byte(final)) {
			return false
		}
		if i > 0 {
			seam = append(seam[:0], pieces[i-1][max(0, len(pieces[i-1])-len(final)+1):]...)
			seam = append(seam, p[:min(len(p), len(final)-1)]...)
			if bytes.Contains(seam, []byte(final)) {
				return false
			}
		}
	}
	return len(pieces) > 0 && unmodelledFirst(pieces[0])
}

// unmodelledFirst reports whether data's first member is a "type" this
// package does not model.
func unmodelledFirst(data []byte) bool {
	name, ok := firstType(data)
	return ok && name != "" && !modelled[name]
}

// firstType is the value of data's first member when that member is
// "type" (read from the first 256 bytes, without decoding the event).
func firstType(data []byte) (string, bool) {
	p := flatParser{b: string(data[:min(len(data), 256)])}
	if !p.next('{') {
		return "", false
	}
	p.ws()
	if key, ok := p.rawString(); !ok || key != "type" || !p.next(':') {
		return "", false
	}
	p.ws()
	return p.rawString()
}
