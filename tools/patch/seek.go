package patch

import (
	"strings"
	"unicode"
)

// seek returns the index of the first occurrence of pattern in lines at or
// after start, or -1. Like the reference's seek_sequence it tries, in order
// and each over every position: an exact match, then ignoring trailing
// whitespace, then ignoring leading and trailing whitespace, then also
// folding typographic punctuation to ASCII. With eof set the pattern must
// end at the last line. An empty pattern matches at start.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	last := len(lines) - len(pattern) // last candidate position
	if last < start {
		return -1
	}
	first := start
	if eof {
		first = last
	}
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return trimRight(a) == trimRight(b) },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return fold(a) == fold(b) },
	} {
		for i := first; i <= last; i++ {
			if matchAt(lines, pattern, i, eq) {
				return i
			}
		}
	}
	return -1
}

func matchAt(lines, pattern []string, at int, eq func(a, b string) bool) bool {
	for j, p := range pattern {
		if !eq(lines[at+j], p) {
			return false
		}
	}
	return true
}

func trimRight(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// fold trims s and maps typographic dashes, quotes and spaces to ASCII, so
// a patch typed in ASCII still finds "smart" punctuation in the file.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
			'\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

// nearest finds where pattern almost occurs at or after start: the
// position with the longest run of leading lines that match ignoring
// whitespace. It returns that position and the run's length; n is 0 when
// not even the first line occurs.
func nearest(lines, pattern []string, start int) (at, n int) {
	for i := start; i < len(lines); i++ {
		k := 0
		for k < len(pattern) && i+k < len(lines) && fold(lines[i+k]) == fold(pattern[k]) {
			k++
		}
		if k > n {
			at, n = i, k
		}
	}
	return at, n
}
