package transport

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agentcli/agent/internal/jsonstring"
	"github.com/agentcli/agent/internal/readonly"
)

// aliasMax is the largest item whose strings are views of its Raw: a
// small id kept apart from its item (a map of call ids) must not hold a
// 10 MiB item's bytes alive, so a bigger item's strings are copies.
const aliasMax = 4 << 10

// decodeItemFast is [decodeItem] without reflection, for the items of a
// long resumed history: raw is checked by [json.Valid], then its members
// are read in place, and a string without escapes is a view of raw (which
// the item keeps as its Raw, never written) rather than a copy. It reports
// false for anything it does not read exactly as encoding/json would (a
// key differing from a field's only in case, a repeated field, a field of
// another type, an escaped or non-UTF-8 key or string it would have to
// repair), which then takes encoding/json's path: the result is the same
// either way (FuzzDecodeItemFast holds the two paths equal).
func decodeItemFast(raw []byte) (_ Item, unread string, ok bool) {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return Item{}, "", false
	}
	p := flatParser{b: readonly.String(raw)}
	var it Item
	var namespace string
	var seen uint16
	var content contentScan
	p.i = 1
	p.ws()
	if p.next('}') {
		it.Raw = raw
		return it, "", true
	}
	for {
		p.ws()
		key, ok := p.rawString()
		if !ok || !p.next(':') {
			return Item{}, "", false
		}
		p.ws()
		f := itemField(key)
		if f < 0 {
			if foldsToItemField(key) || !p.skipValue() {
				return Item{}, "", false
			}
		} else {
			if seen&(1<<f) != 0 {
				return Item{}, "", false
			}
			seen |= 1 << f
			if f == fieldContent {
				ok = content.scan(&p)
			} else {
				var s string
				s, ok = p.itemString(len(raw) > aliasMax)
				*itemFieldPtr(&it, &namespace, f) = s
			}
			if !ok {
				return Item{}, "", false
			}
		}
		if p.next(',') {
			continue
		}
		if !p.next('}') {
			return Item{}, "", false
		}
		break
	}
	it.Name = qualifiedName(namespace, it.Name)
	it.Raw = raw
	if it.Type == "message" {
		unread = content.unread
	}
	return it, unread, true
}

// The fields of wireItem, by their JSON names.
const (
	fieldType = iota
	fieldID
	fieldRole
	fieldCallID
	fieldName
	fieldNamespace
	fieldArguments
	fieldInput
	fieldContent
)

var itemFields = [...]string{"type", "id", "role", "call_id", "name", "namespace", "arguments", "input", "content"}

func itemField(key string) int {
	for i, f := range itemFields {
		if key == f {
			return i
		}
	}
	return -1
}

// foldsToItemField reports whether key names a wireItem field in any
// case (encoding/json matches keys so).
func foldsToItemField(key string) bool {
	for _, f := range itemFields {
		if len(key) == len(f) && strings.EqualFold(key, f) {
			return true
		}
	}
	return false
}

// itemFieldPtr is where the string field f goes.
func itemFieldPtr(it *Item, namespace *string, f int) *string {
	switch f {
	case fieldType:
		return &it.Type
	case fieldID:
		return &it.ID
	case fieldRole:
		return &it.Role
	case fieldCallID:
		return &it.CallID
	case fieldName:
		return &it.Name
	case fieldNamespace:
		return namespace
	case fieldArguments:
		return &it.Arguments
	}
	return &it.Input
}

// itemString reads a string field's value: a JSON string, or null (the
// field stays ""). Without escapes the string is a view of the input,
// unless clone is set; with them it is unquoted as encoding/json does.
func (p *flatParser) itemString(clone bool) (string, bool) {
	if strings.HasPrefix(p.b[p.i:], "null") {
		p.i += len("null")
		return "", true
	}
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[start:j]
			if !utf8.ValidString(s) {
				return "", false // encoding/json replaces the bad bytes
			}
			p.i = j + 1
			if clone {
				s = strings.Clone(s)
			}
			return s, true
		case c == '\\':
			// The input is valid JSON: the string ends at the first
			// unescaped quote.
			end := j
			for p.b[end] != '"' {
				if p.b[end] == '\\' {
					end++
				}
				end++
			}
			p.i = end + 1
			return jsonstring.Unquote(readonly.Bytes(p.b[start:end])), true
		}
	}
	return "", false
}

// contentScan checks a "content" value as wireItem's Content decodes it
// (null, or an array of null or objects whose "type" is a string and
// "text" and "refusal" are strings or null) and finds the first part
// agent cannot read, as decodeItem does.
type contentScan struct{ unread string }

func (c *contentScan) scan(p *flatParser) bool {
	if strings.HasPrefix(p.b[p.i:], "null") {
		p.i += len("null")
		return true
	}
	if !p.next('[') {
		return false
	}
	if p.next(']') {
		return true
	}
	for n := 1; ; n++ {
		p.ws()
		if strings.HasPrefix(p.b[p.i:], "null") {
			p.i += len("null")
			c.note(n, "", false, false) // a part of no type, as encoding/json leaves it
		} else if !c.part(p, n) {
			return false
		}
		if p.next(',') {
			continue
		}
		return p.next(']')
	}
}

// part reads the content part n (1-based), an object.
func (c *contentScan) part(p *flatParser, n int) bool {
	if !p.next('{') {
		return false
	}
	var typ string
	var text, refusal, seen bool
	if p.next('}') {
		return c.note(n, typ, text, refusal)
	}
	for {
		p.ws()
		key, ok := p.rawString()
		if !ok || !p.next(':') {
			return false
		}
		p.ws()
		switch key {
		case "type":
			if seen {
				return false
			}
			typ, ok = p.itemString(false) // compared, and copied into unread
			seen = true
		case "text", "refusal":
			isStr := p.i < len(p.b) && p.b[p.i] == '"'
			ok = p.skipValue() && (isStr || strings.HasPrefix(p.b[p.i-4:], "null"))
			text, refusal = text || key == "text" && isStr, refusal || key == "refusal" && isStr
		default:
			ok = !strings.EqualFold(key, "type") && !strings.EqualFold(key, "text") && !strings.EqualFold(key, "refusal") && p.skipValue()
		}
		if !ok {
			return false
		}
		if p.next(',') {
			continue
		}
		return p.next('}') && c.note(n, typ, text, refusal)
	}
}

// note records part n as the first agent cannot read, if it is.
func (c *contentScan) note(n int, typ string, text, refusal bool) bool {
	if c.unread == "" && !knownPart(typ) && !text && !refusal {
		c.unread = unreadPart(n, typ)
	}
	return true
}
