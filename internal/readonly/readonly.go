// Package readonly lends a string's bytes to code that takes a []byte and
// only reads it (encoding/json's Unmarshal, a writer), and bytes to code
// that reads a string and keeps none of it, without the copy a
// conversion makes: a 10 MiB event or tool argument is not copied once
// more to be decoded or scanned.
package readonly

import "unsafe"

// Bytes returns s's bytes without copying them. The slice must never be
// written, nor appended to by anyone who might write in place: its
// capacity is its length, so an append copies, but an element set would
// change an immutable string (undefined behaviour). Slices of it should
// keep that capacity (b[i:j:j]).
func Bytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// String returns b's bytes as a string without copying them, for a
// reader that keeps nothing of it past the call (a substring it returns
// must be cloned): b must not change meanwhile.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
