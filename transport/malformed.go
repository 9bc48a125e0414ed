package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/internal/readonly"
)

// Malformed is what of a server event agent could not read as the
// Responses API defines it: a delta that is not a string, an output item
// whose fields are not of their types (content that is not an array of
// parts, a part's text that is not a string), a content part of a type
// agent does not know and cannot read text from. The stream goes on; the
// consumer tells the user ([Malformed.Message]) and keeps Raw with the
// session, so nothing is dropped without a word.
type Malformed struct {
	// Type is the event's type.
	Type string
	// ItemID is the id of the item it is about, "" when none is known.
	ItemID string
	// Problem names what could not be read: the field and what it was.
	Problem string
	// Kept says the item was used without what could not be read; else
	// the event (or item) was left out.
	Kept bool
	// Raw is the event as the server sent it.
	Raw json.RawMessage
}

// Message is the warning for the user.
func (m Malformed) Message() string {
	what := m.Type
	if m.ItemID != "" {
		what += " (item " + m.ItemID + ")"
	}
	then := "it was left out"
	if m.Kept {
		then = "the rest of the item was used"
	}
	return fmt.Sprintf("the server sent %s that agent could not read: %s; %s", what, m.Problem, then)
}

// kind names a JSON value's type for a Problem.
func kind(b []byte) string {
	switch first(b) {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "empty"
	}
	return "a number"
}

// textOrKind is a string field read leniently, remembering what else it
// was: a JSON string is its text; another value leaves the text "" and
// names its kind in other (null is absent).
type textOrKind struct {
	s     text
	other string
}

func (t *textOrKind) UnmarshalJSON(b []byte) error {
	if first(b) == '"' {
		return t.s.UnmarshalJSON(b)
	}
	if string(b) != "null" {
		t.other = kind(b)
	}
	return nil
}

// knownPart reports whether agent knows a content part type (of output
// and input messages); a part of another type is read for its text all
// the same.
func knownPart(typ string) bool {
	switch typ {
	case "output_text", "refusal", "input_text", "input_image", "input_file", "reasoning_text", "summary_text":
		return true
	}
	return false
}

// checkItem parses an output item and says what of it agent cannot read:
// ok is false when the item must be left out (problem then says why); an
// item that is used may still have a problem (a part it cannot read).
// A readable item costs no more than parsing it.
func checkItem(raw json.RawMessage) (it Item, problem string, ok bool) {
	it, problem, ok, _ = checkItemSyntax(raw)
	return it, problem, ok
}

// checkItemSyntax is checkItem also saying whether raw is not JSON at all
// (a syntax error), which [decodeLarge] leaves to the general path.
func checkItemSyntax(raw json.RawMessage) (it Item, problem string, ok, syntax bool) {
	if first(raw) != '{' {
		return Item{}, fmt.Sprintf("the item is %s, not an object", kind(raw)), false, false
	}
	it, problem, err := decodeItem(raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return Item{}, itemProblem(raw, err), false, true
	case err != nil:
		return Item{}, itemProblem(raw, err), false, false
	case it.Type == "":
		return Item{}, `the item has no "type"`, false, false
	}
	return it, problem, true, false
}

// itemID is an item's id as sent, "" when it has none that is a string.
func itemID(raw json.RawMessage) string {
	var w struct {
		ID text `json:"id"`
	}
	_ = json.Unmarshal(raw, &w)
	return string(w.ID)
}

// itemProblem says what of an item that did not parse agent cannot read:
// the content's shape, else the field of the wrong type. Its values are
// read in place ([rawRef]), never copied.
func itemProblem(raw json.RawMessage, parseErr error) string {
	if p := contentProblem(raw); p != "" {
		return p
	}
	var te *json.UnmarshalTypeError
	if errors.As(parseErr, &te) && te.Field != "" {
		return fmt.Sprintf("%q is a %s, not a %s", te.Field, te.Value, te.Type)
	}
	return "the item is not a JSON object of its fields: " + parseErr.Error()
}

// contentProblem checks an item's content: an array of part objects
// whose text and refusal are strings.
func contentProblem(raw json.RawMessage) string {
	var w struct {
		Content rawRef `json:"content"`
	}
	if json.Unmarshal(raw, &w) != nil || len(w.Content) == 0 || string(w.Content) == "null" {
		return ""
	}
	var list []rawRef
	if first(w.Content) != '[' || json.Unmarshal(w.Content, &list) != nil {
		return fmt.Sprintf(`"content" is %s, not an array of parts`, kind(w.Content))
	}
	for i, p := range list {
		var f struct{ Text, Refusal rawRef }
		if first(p) != '{' || json.Unmarshal(p, &f) != nil {
			return fmt.Sprintf("content part %d is %s, not an object", i+1, kind(p))
		}
		for _, v := range []struct {
			name string
			b    rawRef
		}{{"text", f.Text}, {"refusal", f.Refusal}} {
			if len(v.b) > 0 && first(v.b) != '"' && string(v.b) != "null" {
				return fmt.Sprintf("content part %d's %q is %s, not a string", i+1, v.name, kind(v.b))
			}
		}
	}
	return ""
}

// unreadableItem is the [Malformed] of a response.output_item.done that
// encoding/json refused as a whole (err): an item nested deeper than it
// reads (10,000 levels), or not JSON. The event's type (its leading
// "type" member, else typ) and its item are found by matching quotes and
// brackets, at any depth, so the item is named like any other unreadable
// one instead of being skipped as an undecodable event. ok is false when
// the payload is not such an event.
func unreadableItem(typ string, data []byte, err error) (Malformed, bool) {
	s := readonly.String(data)
	p := flatParser{b: s}
	if p.next('{') {
		p.ws()
		if key, ok := p.rawString(); ok && key == "type" && p.next(':') {
			p.ws()
			if t, ok := p.rawString(); ok {
				typ = t
			}
		}
	}
	if typ != "response.output_item.done" {
		return Malformed{}, false
	}
	start, end, ok := memberSpan(s, "item")
	if !ok || first(data[start:end]) != '{' {
		return Malformed{}, false
	}
	problem := "the item is not JSON: " + err.Error()
	if strings.Contains(err.Error(), "exceeded max depth") {
		problem = "the item is nested deeper than the 10000 levels a JSON reader takes"
	}
	id, _ := leadingIDIn(s[start:end])
	return Malformed{Type: typ, ItemID: strings.Clone(id), Problem: problem, Raw: bytes.Clone(data)}, true
}
