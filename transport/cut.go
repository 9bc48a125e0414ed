package transport

import (
	"bytes"
	"strings"
)

// A Cutter leaves out of a response.completed frame, as the frame is
// read, the output items the stream delivered before (by their leading
// "id", as Decode leaves them out). OpenAI lists a 120 MiB answer or call
// again there: held until the frame was whole, that listing was a third
// copy of the item in the process, beside the item's Raw and its decoded
// text (issue 42); cut as it arrives, no more than an item's first 4 KiB
// is held of it.
//
// The frame's data is fed in order, a buffer at a time ([Cutter.Feed]),
// then ended ([Cutter.End]); what is kept is handed to the keep function
// as soon as it is known: slices of the buffer being fed (fed is true),
// or small slices of its own (an item's first bytes, held until its id is
// read, and the commas between items). A buffer none of whose bytes was
// handed on may be reused at once. A frame of another type, or whose
// first member is not its "type", is handed on whole.
//
// Items are found by quotes and brackets, not validated: a frame that
// decodes whole decodes to the same event cut (FuzzCutter); one
// malformed only inside an item left out is read without it. A Cutter is
// for one frame and one goroutine.
type Cutter struct {
	delivered map[string]bool
	keep      func(b []byte, fed bool)

	whole bool // nothing more is cut: the rest is handed on as it comes
	level int  // 0 before the frame's '{', 1 in it, 2 in its response, 3 in the response's output
	at    cutAt
	first bool      // the member being read at level 1 is the frame's first
	key   [64]byte  // the current member's name at level 1 or 2
	keyN  int       // its length; -1 when longer than key
	inVal bool      // a value at level 1 or 2 is being skipped
	val   skipper   // that value, or the current item at level 3
	typ   []byte    // the first member's value, up to 64 bytes
	item  itemState // the current item at level 3
	head  []byte    // its first bytes, while undecided
	// commas are the commas read since the last item, not yet handed on;
	// kept and cut say whether an item of the output was kept, or cut.
	commas     int
	kept, cut  bool
	p          []byte // the buffer being fed
	handing    bool   // p[from:] is being handed on
	from       int
	handedFrom bool // some of p was handed on
}

type cutAt int

const (
	atKey   cutAt = iota // before a member's name (or the object's end)
	atName               // in a member's name
	atColon              // after the name
	atValue              // before the value
	atAfter              // after the value
)

type itemState int

const (
	noItem   itemState = iota
	headItem           // its first bytes held until its id is read
	keptItem
	cutItem
)

// headMax is how much of an item is read for its leading id, as Decode
// reads it.
const headMax = 4 << 10

// NewCutter returns a Cutter for a frame named name (its SSE event name,
// or "" when unnamed) that hands what it keeps to keep, or nil when
// nothing of it can be cut: the stream delivered no item yet, or the name
// is not response.completed.
func (d *FrameDecoder) NewCutter(name string, keep func(b []byte, fed bool)) *Cutter {
	if len(d.delivered) == 0 || name != "" && name != "response.completed" {
		return nil
	}
	return &Cutter{delivered: d.delivered, keep: keep}
}

// Feed reads the next bytes of the frame, handing on what is kept, and
// reports whether any of p was handed on (then p must not change until
// the frame has been used).
func (c *Cutter) Feed(p []byte) (fed bool) {
	if c.whole {
		if len(p) > 0 {
			c.keep(p, true)
		}
		return len(p) > 0
	}
	c.p, c.from, c.handedFrom = p, 0, false
	c.handing = c.level < 3 || c.item == keptItem
	for i := 0; i < len(p); {
		if c.whole {
			c.hand(i)
			break
		}
		if c.level == 3 {
			i = c.output(i)
		} else {
			i = c.object(i)
		}
	}
	c.stop(len(p))
	c.p = nil
	return c.handedFrom
}

// End ends the frame: an item whose id was never read (the frame ended
// inside it) and commas not yet handed on are handed on.
func (c *Cutter) End() {
	if c.item == headItem {
		c.commasBeforeKept()
		c.keep(c.head, false)
		c.item, c.head = noItem, nil
	}
	c.handCommas(c.commas)
}

// hand starts handing on p from i.
func (c *Cutter) hand(i int) {
	if !c.handing {
		c.handing, c.from = true, i
	}
}

// stop hands on p[from:i] and stops handing.
func (c *Cutter) stop(i int) {
	if c.handing && i > c.from {
		c.keep(c.p[c.from:i], true)
		c.handedFrom = true
	}
	c.handing = false
}

// handOwn hands on b, of the Cutter's own, at i in p.
func (c *Cutter) handOwn(i int, b []byte) {
	if len(b) == 0 {
		return
	}
	resume := c.handing
	c.stop(i)
	c.keep(b, false)
	if resume {
		c.hand(i)
	}
}

var commas = bytes.Repeat([]byte{','}, 16)

func (c *Cutter) handCommas(n int) {
	for ; n > 0; n -= min(n, len(commas)) {
		c.keep(commas[:min(n, len(commas))], false)
	}
	c.commas = 0
}

// giveUp hands on the rest of the frame as it comes, from i.
func (c *Cutter) giveUp(i int) int {
	c.stop(i)
	c.handCommas(c.commas)
	c.whole = true
	return i
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// object reads p from i at levels 0 to 2, all of it handed on, and
// returns where it stopped.
func (c *Cutter) object(i int) int {
	p := c.p
	if c.inVal {
		n, done := c.val.run(p[i:])
		if c.level == 1 && c.first {
			c.typ = append(c.typ, p[i:i+min(n, 65-len(c.typ))]...)
		}
		i += n
		if done {
			c.inVal, c.at = false, atAfter
			if c.level == 1 && c.first {
				c.first = false
				if string(c.typ) != `"response.completed"` {
					return c.giveUp(i)
				}
			}
		}
		return i
	}
	if c.at == atName {
		return c.name(i)
	}
	if isSpace(p[i]) {
		return i + 1
	}
	switch {
	case c.level == 0 && p[i] == '{':
		c.level, c.at, c.first = 1, atKey, true
	case c.level == 0:
		return c.giveUp(i)
	case c.at == atKey && p[i] == '"':
		c.at, c.keyN = atName, 0
	case (c.at == atKey || c.at == atAfter) && p[i] == '}':
		c.level, c.at = c.level-1, atAfter
		if c.level == 0 {
			return c.giveUp(i + 1) // what follows the frame is not read
		}
	case c.at == atColon && p[i] == ':':
		c.at = atValue
	case c.at == atAfter && p[i] == ',':
		c.at = atKey
	case c.at == atValue:
		return c.value(i)
	default:
		return c.giveUp(i)
	}
	return i + 1
}

// name reads a member's name from i.
func (c *Cutter) name(i int) int {
	for ; i < len(c.p); i++ {
		switch b := c.p[i]; {
		case b == '"':
			c.at = atColon
			return i + 1
		case b == '\\':
			return c.giveUp(i) // no name of interest is escaped
		case c.keyN >= 0 && c.keyN < len(c.key):
			c.key[c.keyN] = b
			c.keyN++
		default:
			c.keyN = -1
		}
	}
	return i
}

// value starts a member's value at i (not white space).
func (c *Cutter) value(i int) int {
	key := ""
	if c.keyN >= 0 {
		key = string(c.key[:c.keyN])
	}
	switch {
	case c.level == 1 && c.first && key != "type":
		return c.giveUp(i)
	case c.level == 1 && key == "response" && c.p[i] == '{':
		c.level, c.at = 2, atKey
		return i + 1
	case c.level == 2 && key == "output" && c.p[i] == '[':
		c.level, c.item, c.commas, c.kept, c.cut = 3, noItem, 0, false, false
		c.stop(i + 1)
		return i + 1
	}
	c.inVal, c.val = true, skipper{}
	return i
}

// output reads p from i in the response's output: white space and commas
// are held, the items delivered before are not handed on.
func (c *Cutter) output(i int) int {
	p := c.p
	switch c.item {
	case headItem:
		m := min(len(p)-i, headMax-len(c.head))
		n, done := c.val.run(p[i : i+m])
		c.head = append(c.head, p[i:i+n]...)
		i += n
		if done || len(c.head) >= headMax {
			c.decide(i, done)
		}
		return i
	case keptItem, cutItem:
		n, done := c.val.run(p[i:])
		i += n
		if done {
			c.stop(i)
			c.item = noItem
		}
		return i
	}
	switch b := p[i]; {
	case isSpace(b):
	case b == ',':
		c.commas++
	case b == ']':
		c.handCommas(c.commas)
		c.level, c.at = 2, atAfter
		c.hand(i)
	case b == '{':
		c.item, c.val, c.head = headItem, skipper{}, make([]byte, 0, 256)
		return i
	case b == '"' || b == '[' || isScalar(b):
		c.commasBeforeKept()
		c.item, c.val, c.kept = keptItem, skipper{}, true
		c.hand(i)
		return i
	default:
		return c.giveUp(i)
	}
	return i + 1
}

// decide keeps or cuts the item whose first bytes are c.head, at i in p;
// done says the item ended there.
func (c *Cutter) decide(i int, done bool) {
	if id, ok := leadingIDIn(string(c.head)); ok && c.delivered[id] {
		if c.kept || c.cut {
			c.commas = max(0, c.commas-1) // the comma before it goes with it
		}
		c.item, c.cut = cutItem, true
	} else {
		c.commasBeforeKept()
		c.handOwn(i, c.head)
		c.item, c.kept = keptItem, true
		c.hand(i)
	}
	c.head = nil
	if done {
		c.stop(i)
		c.item = noItem
	}
}

// commasBeforeKept hands on the commas before an item kept: after items
// cut and none kept, one of them was theirs.
func (c *Cutter) commasBeforeKept() {
	n := c.commas
	if !c.kept && c.cut {
		n = max(0, n-1)
	}
	c.handCommas(n)
}

func isScalar(b byte) bool { return strings.IndexByte("0123456789+-.eEtrufalsn", b) >= 0 }

// skipper finds the end of one JSON value read a buffer at a time, by
// quotes and brackets only.
type skipper struct {
	begun  bool
	str    bool // in a string
	bs     bool // in a string, after a backslash that escapes the next byte
	scalar bool
	depth  int
}

// run reads b and returns how much of it belongs to the value, and
// whether the value ended there (a scalar ends before the byte that ends
// it, which is not counted).
func (k *skipper) run(b []byte) (int, bool) {
	i := 0
	if !k.begun && len(b) > 0 {
		k.begun = true
		switch b[0] {
		case '"':
			k.str, i = true, 1
		case '{', '[':
			k.depth, i = 1, 1
		default:
			k.scalar = true
		}
	}
	for i < len(b) {
		switch {
		case k.str:
			n, end := stringEnd(b[i:], &k.bs)
			i += n
			if !end {
				return i, false
			}
			k.str = false
			if k.depth == 0 {
				return i, true
			}
		case k.scalar:
			for i < len(b) && isScalar(b[i]) {
				i++
			}
			if i < len(b) {
				return i, true
			}
		default:
			j := bytes.IndexAny(b[i:], `"{}[]`)
			if j < 0 {
				return len(b), false
			}
			i += j + 1
			switch b[i-1] {
			case '"':
				k.str = true
			case '{', '[':
				k.depth++
			default:
				k.depth--
			}
			if k.depth == 0 {
				return i, true
			}
		}
	}
	return i, false
}

// stringEnd finds the quote that ends a string in b (the string's
// opening quote read before): the bytes up to and including it, and
// true; or len(b) and false, with bs saying whether b ended in an
// escaping backslash. The quotes are found a run at a time.
func stringEnd(b []byte, bs *bool) (int, bool) {
	i := 0
	for {
		if *bs {
			if i >= len(b) {
				return i, false
			}
			*bs, i = false, i+1
		}
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			*bs = trailingBackslashes(b[i:])%2 == 1
			return len(b), false
		}
		if trailingBackslashes(b[i:i+j])%2 == 0 {
			return i + j + 1, true
		}
		i += j + 1 // an escaped quote
	}
}

// trailingBackslashes counts the backslashes b ends with.
func trailingBackslashes(b []byte) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n
}
