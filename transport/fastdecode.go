package transport

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agentcli/agent/internal/readonly"
)

// decodeDelta decodes the events that make up almost all of a stream
// (output text and reasoning summary deltas) without reflection. It accepts
// only a flat object of strings and integers (and empty arrays, as in
// "logprobs":[]) and reports false for anything else, which then takes the
// general path: the result is the same either way (FuzzDecodeDelta holds
// the two paths equal).
func decodeDelta(data string) (Event, bool) {
	p := flatParser{b: data}
	var typ string
	var itemID, delta string
	summaryIndex := 0
	if !p.next('{') {
		return nil, false
	}
	for {
		p.ws()
		key, ok := p.rawString()
		if !ok || !p.next(':') {
			return nil, false
		}
		p.ws()
		if p.i >= len(p.b) {
			return nil, false
		}
		isStr := p.b[p.i] == '"'
		switch key {
		case "type":
			typ, ok = p.str()
			// Another type is the general path's: leave before its other
			// fields (a 10 MiB function_call_arguments.delta) are unquoted.
			ok = ok && isStr && (typ == "response.output_text.delta" || typ == "response.reasoning_summary_text.delta")
		case "item_id":
			itemID, ok = p.str()
			ok = ok && isStr
		case "delta":
			delta, ok = p.str()
			ok = ok && isStr
		case "summary_index":
			summaryIndex, ok = p.integer()
		case "content_index", "status": // integers in wireEvent
			_, ok = p.integer()
		case "call_id": // a string in wireEvent
			_, ok = p.str()
			ok = ok && isStr
		case "output_index", "sequence_number", "obfuscation", "logprobs":
			// Known and ignored, as json.Unmarshal would.
			ok = p.ignored(isStr)
		default:
			// encoding/json matches keys case-insensitively: leave the
			// other fields of wireEvent, and near-misses of them all, to it.
			ok = !foldsToField(key) && p.ignored(isStr)
		}
		if !ok {
			return nil, false
		}
		if p.next(',') {
			continue
		}
		if !p.next('}') {
			return nil, false
		}
		p.ws()
		if p.i != len(p.b) {
			return nil, false
		}
		break
	}
	// The id is kept (a map key of open items): a copy, not a substring
	// holding the whole event's data, a 10 MiB delta, alive.
	itemID = strings.Clone(itemID)
	switch typ {
	case "response.output_text.delta":
		return TextDelta{ItemID: itemID, Delta: delta}, true
	case "response.reasoning_summary_text.delta":
		return ReasoningSummaryDelta{ItemID: itemID, Delta: delta, SummaryIndex: summaryIndex}, true
	}
	return nil, false
}

// wireFields are the JSON names of wireEvent's fields.
var wireFields = [...]string{"type", "response", "item", "item_id", "call_id", "delta",
	"summary_index", "content_index", "error", "status"}

// foldsToField reports whether key names a wireEvent field in any case.
func foldsToField(key string) bool {
	for _, f := range wireFields {
		if len(key) == len(f) && strings.EqualFold(key, f) {
			return true
		}
	}
	return false
}

// flatParser reads one JSON object whose values are strings or integers.
type flatParser struct {
	b string
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

// ignored skips the value of a field nobody reads: a string, an integer or
// an empty array.
func (p *flatParser) ignored(isStr bool) bool {
	if isStr {
		_, ok := p.str()
		return ok
	}
	if p.b[p.i] == '[' {
		p.i++
		return p.next(']')
	}
	_, ok := p.integer()
	return ok
}

// rawString reads a key without escapes (keys of interest have none).
func (p *flatParser) rawString() (string, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	end := strings.IndexByte(p.b[start:], '"')
	if end < 0 {
		return "", false
	}
	key := p.b[start : start+end]
	for i := range len(key) {
		if c := key[i]; c == '\\' || c < 0x20 {
			return "", false
		}
	}
	p.i = start + end + 1
	return key, true
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

// str reads a JSON string value, unescaping it. Without escapes the
// result is a substring of the input (valid UTF-8; anything else is left to
// encoding/json, which replaces bad bytes).
func (p *flatParser) str() (string, bool) {
	if p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	end := strings.IndexByte(p.b[start:], '"')
	if end < 0 {
		return "", false
	}
	s := p.b[start : start+end]
	high := false
	for j := range len(s) {
		c := s[j]
		if c == '\\' || c < 0x20 {
			return p.unquote(start + j)
		}
		high = high || c >= 0x80
	}
	if high && !utf8.ValidString(s) {
		return "", false
	}
	p.i = start + end + 1
	return s, true
}

// unquote lets encoding/json unquote the string at p.i, whose first escape
// (or control character) is at j.
func (p *flatParser) unquote(j int) (string, bool) {
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
	if json.Unmarshal([]byte(p.b[p.i:end+1]), &s) != nil {
		return "", false
	}
	p.i = end + 1
	return s, true
}

// leadingID reads an item's "id" from its first members without decoding
// the item: members before it may be strings (skipped, however long, not
// unquoted: a 10 MiB "arguments" sorted before "id" costs a scan, not a
// copy), numbers, booleans or null; anything else, an escaped key or id,
// or no id reports false.
func leadingID(item []byte) (string, bool) {
	id, ok := leadingIDIn(readonly.String(item))
	return strings.Clone(id), ok // not a view of item
}

func leadingIDIn(item string) (string, bool) {
	p := flatParser{b: item}
	if !p.next('{') {
		return "", false
	}
	for {
		p.ws()
		key, ok := p.rawString()
		if !ok || !p.next(':') {
			return "", false
		}
		p.ws()
		if key == "id" {
			id, ok := p.rawString()
			return id, ok && utf8.ValidString(id) // encoding/json replaces bad bytes
		}
		if !p.skipScalar() || !p.next(',') {
			return "", false
		}
	}
}

// skipScalar skips a string (escapes and all), a number, true, false or
// null.
func (p *flatParser) skipScalar() bool {
	if p.i >= len(p.b) {
		return false
	}
	if p.b[p.i] == '"' {
		for j := p.i + 1; j < len(p.b); j++ {
			switch p.b[j] {
			case '\\':
				j++
			case '"':
				p.i = j + 1
				return true
			}
		}
		return false
	}
	start := p.i
	for p.i < len(p.b) && strings.IndexByte("0123456789+-.eEtrufalsn", p.b[p.i]) >= 0 {
		p.i++
	}
	return p.i > start
}
