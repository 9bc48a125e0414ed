package transport

import (
	"encoding/json"
	"strings"

	"github.com/agentcli/agent/internal/readonly"
)

// largeEvent is the size above which an item or a completed response is
// decoded by [decodeLarge].
const largeEvent = 64 << 10

// decodeLarge decodes a large response.output_item.done or
// response.completed (its "type" first) with its item or response read
// twice less: encoding/json validates a whole payload before decoding it,
// and again each part an Unmarshaler decodes, so a 10 MiB item was
// scanned four times before the item itself was decoded. Here the item's
// (or response's) place is found by a scan that only matches brackets
// and quotes, the rest of the payload (that value replaced by null) is
// decoded as usual, and the value is decoded, and so validated, once. The
// result is decodeGeneral's (FuzzDecodeLarge); ok is false when the
// payload is not of that shape, for decodeGeneral to decode.
func decodeLarge(data string, delivered map[string]bool) (ev Event, ok bool, err error) {
	p := flatParser{b: data}
	if !p.next('{') {
		return nil, false, nil
	}
	p.ws()
	if key, ok := p.rawString(); !ok || key != "type" || !p.next(':') {
		return nil, false, nil
	}
	p.ws()
	t, ok := p.rawString()
	var member string
	switch {
	case !ok:
		return nil, false, nil
	case t == "response.output_item.done":
		member = "item"
	case t == "response.completed":
		member = "response"
	default:
		return nil, false, nil
	}
	start, end, ok := memberSpan(data, member)
	if !ok {
		return nil, false, nil
	}
	var h wireHead
	if json.Unmarshal([]byte(data[:start]+"null"+data[end:]), &h) != nil || string(h.Type) != t ||
		string(h.Item) != "null" && t == "response.output_item.done" || string(h.Response) != "null" && t == "response.completed" {
		return nil, false, nil // malformed, or the member twice: the general path says what
	}
	b := readonly.Bytes(data)
	value := b[start:end:end]
	if t == "response.completed" {
		ev, err := decodeResponseEvent(t, value, true, delivered)
		return ev, true, err
	}
	if first(value) != '{' {
		return nil, false, nil // not an object: unvalidated, left to the general path
	}
	it, problem, kept, syntax := checkItemSyntax(value)
	if syntax {
		return nil, false, nil // the general path's syntax error
	}
	ev, err = itemEvent(t, b, value, it, problem, kept)
	return ev, true, err
}

// memberSpan finds the value of the top-level member key of the JSON
// object data: data[start:end]. Values before it are skipped by matching
// quotes and brackets only; a key with escapes, a second object, or
// anything unexpected reports false.
func memberSpan(data, key string) (start, end int, ok bool) {
	p := flatParser{b: data}
	if !p.next('{') {
		return 0, 0, false
	}
	for {
		p.ws()
		k, ok := p.rawString()
		if !ok || !p.next(':') {
			return 0, 0, false
		}
		p.ws()
		start := p.i
		if !p.skipValue() {
			return 0, 0, false
		}
		if k == key {
			return start, p.i, true
		}
		if !p.next(',') {
			return 0, 0, false
		}
	}
}

// skipValue skips one JSON value by its quotes and brackets.
func (p *flatParser) skipValue() bool {
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		return p.skipString()
	case '{', '[':
	default:
		return p.skipScalar()
	}
	depth := 0
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '"':
			if !p.skipString() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				p.i++
				return true
			}
		}
		p.i++
	}
	return false
}

// skipString skips a string at p.i, escapes and all: the next quote not
// escaped, found a run at a time.
func (p *flatParser) skipString() bool {
	j := p.i + 1
	for {
		q := strings.IndexByte(p.b[j:], '"')
		if q < 0 {
			return false
		}
		j += q
		bs := 0
		for k := j - 1; k > p.i && p.b[k] == '\\'; k-- {
			bs++
		}
		j++
		if bs%2 == 0 {
			p.i = j
			return true
		}
	}
}
