// Package redact masks the credentials a process holds wherever it
// prints, logs or records text that came from outside: a server that
// echoes a key in an error body, a command that prints its environment.
//
// A [Set] holds the secret values known so far; it grows as credentials
// are read (API keys, tokens from auth.json or an auth command, refreshed
// tokens, MCP bearer tokens) and every sink consults it when it writes:
// [Set.String] for one piece of text, [Set.Writer] for a stream.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"iter"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every occurrence of a secret.
const Mask = "[REDACTED]"

// MinLen is the shortest value [Set.Add] takes: shorter ones are not
// credentials worth the damage masking them would do to ordinary text.
const MinLen = 8

// PrefixLen is the shortest start of a secret that is masked on its own:
// a server that echoes a key's first characters ("sk-proj-AbCdEfGh...")
// gets them masked, as far as the echo follows the key. A secret shorter
// than PrefixLen is masked only whole.
const PrefixLen = 12

// Set is a set of secret values. It is safe for concurrent use; the zero
// value is an empty set.
type Set struct {
	mu sync.RWMutex
	// vals are the values and their encoded forms, in ASCII lower case
	// (matching ignores ASCII case), longest first.
	vals []string
	// filter tells the texts that hold no secret, which are passed on as
	// they are, without the replacer's slow scan and copy. Replaced, never
	// changed, by Add.
	filter *filter
}

// New returns a set holding values (see [Set.Add]).
func New(values ...string) *Set {
	s := &Set{}
	s.Add(values...)
	return s
}

// Add adds values to the set, trimmed of surrounding space; values
// shorter than [MinLen] are ignored. The encoded forms of a value (see
// [encodings]) are added too, so that a secret echoed as JSON, base64 or
// in a URL is masked as well.
func (s *Set) Add(values ...string) {
	var add []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinLen {
			continue
		}
		add = append(add, lower(v))
		for _, e := range encodings(v) {
			if e = lower(e); len(e) >= MinLen && !slices.Contains(add, e) {
				add = append(add, e)
			}
		}
	}
	if len(add) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	vals := slices.Clone(s.vals) // readers hold the old slice without the lock
	for _, v := range add {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest first: where two secrets start at the same place the
	// longer one is masked whole.
	slices.SortStableFunc(vals, func(a, b string) int { return len(b) - len(a) })
	s.vals, s.filter = vals, newFilter(vals)
}

// lower is s with ASCII letters in lower case (a key's case variants are
// the same key to a server that folds case, and to a reader).
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lowerByte(b[j])
			}
			return string(b)
		}
	}
	return s
}

func lowerByte(c byte) byte { return lowerTable[c] }

// lowerTable maps each byte to its ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// anchor is the part of the form v that must occur for it to be masked:
// its first [PrefixLen] bytes (all of it when shorter).
func anchor(v string) string { return v[:min(len(v), PrefixLen)] }

// span is an occurrence of a secret in a text, text[lo:hi].
type span struct{ lo, hi int }

// spans returns the occurrences in text of the forms vals (ignoring ASCII
// case), by their start: an occurrence is a form's anchor followed by as
// much of the rest of the form as text follows.
func spans(vals []string, text string) []span {
	low := lower(text)
	var out []span
	for _, v := range vals {
		a := anchor(v)
		for off := 0; ; {
			i := strings.Index(low[off:], a)
			if i < 0 {
				break
			}
			i += off
			n := len(a)
			for n < len(v) && i+n < len(low) && low[i+n] == v[n] {
				n++
			}
			out = append(out, span{i, i + n})
			off = i + 1
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.lo - b.lo })
	return out
}

// mask returns text with every occurrence of a form of vals masked;
// overlapping occurrences are masked as one.
func mask(vals []string, text string) string {
	sp := spans(vals, text)
	if len(sp) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for k := 0; k < len(sp); {
		lo, hi := sp[k].lo, sp[k].hi
		for k++; k < len(sp) && sp[k].lo < hi; k++ {
			hi = max(hi, sp[k].hi)
		}
		b.WriteString(text[at:lo])
		b.WriteString(Mask)
		at = hi
	}
	b.WriteString(text[at:])
	return b.String()
}

// filter finds, in one fast pass, the texts that may hold a secret. Every
// secret is at least [MinLen] (>= 7) bytes long, so wherever one occurs in
// a text it covers a whole 4-byte block of the text at an offset that is
// a multiple of 4; grams is a bit set of the hashed 4-byte substrings of
// the secrets. A text none of whose blocks is in it holds no secret; a
// block that is in it is checked for the start of a secret around it.
type filter struct {
	grams   []uint64
	probes  []string // the distinct starts (probeLen bytes) of the secrets' anchors
	probesB [][]byte // probes as bytes
	longest int
}

// gramBits is log2 of the size of the filter's bit set (128 KiB): a few
// thousand 4-byte substrings leave ordinary text's blocks a small chance
// of a false hit.
const gramBits = 20

// probeLen is how much of a secret's start a candidate region is searched
// for.
const probeLen = 16

func newFilter(vals []string) *filter {
	f := &filter{grams: make([]uint64, 1<<gramBits/64)}
	for _, v := range vals {
		for i := 0; i+4 <= len(v); i++ {
			h := gramHash(uint32(v[i]) | uint32(v[i+1])<<8 | uint32(v[i+2])<<16 | uint32(v[i+3])<<24)
			f.grams[h/64] |= 1 << (h % 64)
		}
		if p := anchor(v)[:min(len(anchor(v)), probeLen)]; !slices.Contains(f.probes, p) {
			f.probes = append(f.probes, p)
			f.probesB = append(f.probesB, []byte(p))
		}
		f.longest = max(f.longest, len(v))
	}
	return f
}

func gramHash(g uint32) uint32 { return (g * 0x9E3779B1) >> (32 - gramBits) }

// holds reports whether text holds the start of a secret of f (false:
// it holds no secret). It does not copy text.
func (f *filter) holds(text string) bool {
	var buf [1024]byte
	for lo, hi := range candidates(f, text) {
		if regionHolds(f, text[lo:hi], &buf) {
			return true
		}
	}
	return false
}

// regionHolds reports whether region holds a probe, ignoring ASCII case;
// buf is scratch space for its lower-case copy.
func regionHolds[T string | []byte](f *filter, region T, buf *[1024]byte) bool {
	if len(region) > len(buf) {
		for _, p := range f.probes {
			if containsFold(region, p) {
				return true
			}
		}
		return false
	}
	low := buf[:len(region)]
	for i := range low {
		low[i] = lowerByte(region[i])
	}
	for _, p := range f.probesB {
		if bytes.Contains(low, p) {
			return true
		}
	}
	return false
}

// containsFold reports whether text holds p (in lower case) ignoring
// ASCII case.
func containsFold[T string | []byte](text T, p string) bool {
	for i := 0; i+len(p) <= len(text); i++ {
		j := 0
		for j < len(p) && lowerByte(text[i+j]) == p[j] {
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}

// holdsBytes is holds for bytes.
func (f *filter) holdsBytes(text []byte) bool {
	var buf [1024]byte
	for lo, hi := range candidates(f, text) {
		if regionHolds(f, text[lo:hi], &buf) {
			return true
		}
	}
	return false
}

// candidates yields the regions text[lo:hi] of text that must be searched
// for the start of a secret: around each block whose 4 bytes are in the
// bit set, from where a secret covering it could start to where its start
// would end. A nil filter yields none.
func candidates[T string | []byte](f *filter, text T) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		if f == nil {
			return
		}
		n := len(text)
		for j := 0; j+4 <= n; j += 4 {
			h := gramHash(uint32(lowerByte(text[j])) | uint32(lowerByte(text[j+1]))<<8 |
				uint32(lowerByte(text[j+2]))<<16 | uint32(lowerByte(text[j+3]))<<24)
			if f.grams[h/64]&(1<<(h%64)) != 0 && !yield(max(0, j+4-f.longest), min(n, j+f.longest)) {
				return
			}
		}
	}
}

// currentFilter is the filter of the secrets known now.
func (s *Set) currentFilter() *filter {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.filter
}

// encodings returns the forms in which v is commonly echoed: JSON-escaped;
// URL-encoded (query and path escaping); and base64, standard and URL-safe,
// at each of the three alignments v may have inside a longer encoded text
// (such as base64 of "user:KEY" in a Basic header), as the characters that
// depend on v alone; and every byte percent-escaped. (Case variants and
// starts of [PrefixLen] or more bytes of each form are matched by
// [Set.String] itself.) What remains unmasked: a piece from the middle or
// end of a value, other transformations (hex, compression, encryption, a
// base64 text wrapped across lines inside the value), and values shorter
// than [MinLen].
func encodings(v string) []string {
	var out []string
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	out = append(out, url.QueryEscape(v), url.PathEscape(v), percentAll(v))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := range 3 {
			bits := (k + len(v)) * 8
			full := bits / 6 // characters whose six bits are all known
			e := enc.EncodeToString(append(make([]byte, k), v...))[:full]
			skip := (k*8 + 5) / 6 // characters holding bits of the prefix
			out = append(out, e[skip:])
		}
	}
	return out
}

// percentAll is v with every byte percent-escaped, as some servers and
// encoders echo a value.
func percentAll(v string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, 3*len(v))
	for i := 0; i < len(v); i++ {
		b = append(b, '%', hex[v[i]>>4], hex[v[i]&15])
	}
	return string(b)
}

// Len returns the number of values held (encoded forms included).
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.vals)
}

// String returns text with every secret replaced by [Mask]. A nil set
// masks nothing.
func (s *Set) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	vals, f := s.vals, s.filter
	s.mu.RUnlock()
	if f == nil || !f.holds(text) {
		return text // no secret in it: no copy
	}
	return mask(vals, text)
}

// Bytes is [Set.String] for bytes: b itself when it holds no secret (not
// copied), else a masked copy.
func (s *Set) Bytes(b []byte) []byte {
	if s == nil {
		return b
	}
	s.mu.RLock()
	vals, f := s.vals, s.filter
	s.mu.RUnlock()
	if f == nil || !f.holdsBytes(b) {
		return b
	}
	return []byte(mask(vals, string(b)))
}

// heldBack returns the length of the longest suffix of text that is the
// start (not the whole) of a secret.
func (s *Set) heldBack(text string) int {
	if s == nil {
		return 0
	}
	return s.heldBackBytes([]byte(text[max(0, len(text)-s.longest()):]))
}

// longest is the length of the longest secret.
func (s *Set) longest() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.vals) == 0 {
		return 0
	}
	return len(s.vals[0])
}

// heldBackBytes is heldBack of text as bytes.
func (s *Set) heldBackBytes(text []byte) int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	best := 0
	for _, v := range s.vals {
		from := max(0, len(text)-len(v)+1)
		for i := from; i < len(text)-best; i++ {
			if lowerByte(text[i]) == v[0] && lower(string(text[i:])) == v[:len(text)-i] { // i > len(text)-len(v)
				best = len(text) - i
				break
			}
		}
	}
	return best
}

// Writer returns a writer masking the secrets of s in what it passes to
// w. See [Writer].
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{set: s, w: w} }

// Writer masks secrets in a stream. A secret may arrive split across
// writes, so a write that ends with the start of a secret keeps that end
// back until the next write shows whether the secret follows; [Writer.Flush]
// writes it out. Writer is safe for concurrent use.
type Writer struct {
	set     *Set
	mu      sync.Mutex
	w       io.Writer
	pending string
}

// Write masks p, with any text held back from the last write, and writes
// it to the underlying writer. It reports len(p) unless that write fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f := w.set.currentFilter(); w.pending == "" && (f == nil || !f.holdsBytes(p)) {
		return w.writeClean(p)
	}
	out := w.cut(w.pending + string(p))
	if out == "" {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cut masks text and sets what is held back: the longest end of text
// that starts a secret, judged before masking, so that a secret (or a
// whole secret which starts a longer one) waits for the next write; and
// when an occurrence of a secret runs across that cut, from its start,
// so that overlapping occurrences are masked as one, as [Set.String]
// masks them. It returns what can be written now.
func (w *Writer) cut(text string) string {
	at := len(text) - w.set.heldBack(text)
	if at < len(text) {
		sp := spans(w.set.values(), text)
		for moved := true; moved; {
			moved = false
			for _, o := range sp {
				if o.lo < at && o.hi > at {
					at, moved = o.lo, true
				}
			}
		}
	}
	w.pending = text[at:]
	return w.set.String(text[:at])
}

// values returns the forms of the secrets held now.
func (s *Set) values() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vals
}

// writeClean is Write for a p that holds no secret, with nothing held
// back before it: p is written as it is (a long text is not copied), all
// but the start of a secret it may end with.
func (w *Writer) writeClean(p []byte) (int, error) {
	keep := w.set.heldBackBytes(p)
	out := p[:len(p)-keep]
	w.pending = string(p[len(p)-keep:])
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out any text held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == "" {
		return nil
	}
	// What is held back may be a whole secret that starts a longer one.
	_, err := io.WriteString(w.w, w.set.String(w.pending))
	w.pending = ""
	return err
}
