package tui

import "testing"

// TestCleanDrawsOnlyText: what the chat draws of untrusted text has no
// escape sequence (not even the text's own colours: the chat draws its
// own), no control character, lines a carriage return cannot overwrite,
// and tabs as spaces.
func TestCleanDrawsOnlyText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nnext line", "plain text\nnext line"},
		{"\x1b]0;pwned\x07title", "title"},
		{"\x1b[31mred\x1b[0m and \x1b[1mbold", "red and bold"},
		{"progress 10%\rprogress 99%\r\n", "progress 10%\nprogress 99%\n"},
		{"a\tb", "a    b"},
		{"bell\x07 del\x7f c1\u009b31m", "bell del c131m"},
		{"\x1b[2J\x1b[Hcleared", "cleared"},
	} {
		if got := clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
