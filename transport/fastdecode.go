package transport

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeDelta decodes the events that make up almost all of a stream
// (output text and reasoning summary deltas) without reflection. It accepts
// only a flat object of strings and numbers and reports false for anything
// else, which then takes the general path: the result is the same either
// way (FuzzDecodeDelta holds the two paths equal).
func decodeDelta(data []byte) (Event, bool) {
	p := flatParser{b: data}
	var typ, itemID, delta string
	summaryIndex := 0
	ok := p.object(func(key []byte, str string, num int, isStr bool) bool {
		switch string(key) {
		case "type":
			typ = str
			return isStr
		case "item_id":
			itemID = str
			return isStr
		case "delta":
			delta = str
			return isStr
		case "summary_index":
			summaryIndex = num
			return !isStr
		}
		// encoding/json matches keys case-insensitively: leave near-misses
		// of the fields above (and of the nested ones) to it.
		for _, k := range []string{"type", "item_id", "delta", "summary_index", "response", "item", "error"} {
			if bytes.EqualFold(key, []byte(k)) {
				return false
			}
		}
		return true // other flat fields are ignored, as json.Unmarshal would
	})
	if !ok {
		return nil, false
	}
	switch typ {
	case "response.output_text.delta":
		return TextDelta{ItemID: itemID, Delta: delta}, true
	case "response.reasoning_summary_text.delta":
		return ReasoningSummaryDelta{ItemID: itemID, Delta: delta, SummaryIndex: summaryIndex}, true
	}
	return nil, false
}

// flatParser reads one JSON object whose values are strings or integers.
type flatParser struct {
	b []byte
	i int
}

func (p *flatParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *flatParser) next(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object calls field for each member; it reports false on anything it
// does not handle (nested values, floats, duplicates of interest are fine).
func (p *flatParser) object(field func(key []byte, str string, num int, isStr bool) bool) bool {
	if !p.next('{') {
		return false
	}
	if p.next('}') {
		p.ws()
		return p.i == len(p.b)
	}
	for {
		p.ws()
		key, ok := p.rawString()
		if !ok || !p.next(':') {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		if p.b[p.i] == '"' {
			s, ok := p.str()
			if !ok || !field(key, s, 0, true) {
				return false
			}
		} else {
			n, ok := p.integer()
			if !ok || !field(key, "", n, false) {
				return false
			}
		}
		if p.next(',') {
			continue
		}
		if !p.next('}') {
			return false
		}
		p.ws()
		return p.i == len(p.b)
	}
}

// rawString reads a key without escapes (keys of interest have none).
func (p *flatParser) rawString() ([]byte, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '\\' || c < 0x20:
			return nil, false
		case c == '"':
			p.i = j + 1
			return p.b[start:j], true
		}
	}
	return nil, false
}

func (p *flatParser) integer() (int, bool) {
	start, n := p.i, 0
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' && digits < 9 {
		n = n*10 + int(p.b[p.i]-'0')
		p.i++
		digits++
	}
	if digits == 0 || (p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E' || (p.b[p.i] >= '0' && p.b[p.i] <= '9'))) {
		return 0, false
	}
	if first := start; p.b[first] == '-' && digits > 1 && p.b[first+1] == '0' || p.b[first] == '0' && digits > 1 {
		return 0, false // JSON has no leading zeros
	}
	if p.b[start] == '-' {
		n = -n
	}
	return n, true
}

// str reads a JSON string value, unescaping it.
func (p *flatParser) str() (string, bool) {
	start := p.i + 1
	j := start
	for ; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			s := p.b[start:j]
			if !utf8.Valid(s) {
				return "", false // json.Unmarshal replaces bad bytes; leave it to it
			}
			p.i = j + 1
			return string(s), true
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	// Escapes: let encoding/json unquote just this string.
	end := j
	for end < len(p.b) {
		if p.b[end] == '\\' {
			end += 2
			continue
		}
		if p.b[end] == '"' {
			break
		}
		end++
	}
	if end >= len(p.b) {
		return "", false
	}
	var s string
	if json.Unmarshal(p.b[p.i:end+1], &s) != nil {
		return "", false
	}
	p.i = end + 1
	return s, true
}
