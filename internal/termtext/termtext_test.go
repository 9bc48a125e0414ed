package termtext_test

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/termtext"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain text unchanged", "hello\n\tworld ünïcode 漢字 🙂", "hello\n\tworld ünïcode 漢字 🙂"},
		{"colours kept", "\x1b[31mred\x1b[0m and \x1b[1;38;5;208mbold\x1b[m", "\x1b[31mred\x1b[0m and \x1b[1;38;5;208mbold\x1b[m"},
		{"unterminated colour is reset", "\x1b[32mgreen", "\x1b[32mgreen\x1b[0m"},
		{"window title (OSC 0, BEL)", "a\x1b]0;pwned\x07b", "ab"},
		{"clipboard (OSC 52, ST)", "a\x1b]52;c;dG91Y2ggL3RtcC9QV05FRAo=\x1b\\b", "ab"},
		{"hyperlink (OSC 8)", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"cursor movement", "ok\x1b[2A\x1b[10;1H\x1b[2K\x1b[?25lhidden", "okhidden"},
		{"erase and scroll", "\x1b[2J\x1b[3J\x1bc\x1b[r", ""},
		{"terminal queries", "\x1b[6n\x1b[c\x1b]11;?\x07\x1bP+q544e\x1b\\", ""},
		{"private SGR-like is not SGR", "\x1b[?1049hx\x1b[>4;2m", "x"},
		{"8-bit CSI and OSC", "a\u009b2Jb\u009d0;t\u0007c", "a2Jb0;tc"},
		{"carriage return cannot overwrite", "secret\rvisible\r\nnext", "secret\nvisible\nnext"},
		{"backspace, bell, NUL, DEL dropped", "ab\bc\a\x00d\x7f", "abcd"},
		{"DCS, APC, PM, SOS dropped", "1\x1bPq#0\x1b\\2\x1b_G a=T\x1b\\3\x1b^x\x1b\\4\x1bXy\x1b\\5", "12345"},
		{"lone ESC at the end", "text\x1b", "text"},
		{"unterminated OSC swallows the rest", "a\x1b]0;title", "a"},
		{"charset and keypad escapes", "\x1b(0x\x1b=\x1b>", "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := termtext.Sanitize(c.in)
			if got != c.want {
				t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
			}
			if again := termtext.Sanitize(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// FuzzSanitize: whatever comes in, what comes out holds no control byte
// but newline and tab, no escape sequence but SGR, no C1 control, and
// sanitizing it again changes nothing.
func FuzzSanitize(f *testing.F) {
	f.Add("\x1b[31mred\x1b]0;t\x07\x1b[2J\r\n")
	f.Add("\u009b31m\x1bP\x1b\\")
	f.Add("\x1b\x1b[1mx\r\r\n\xc2")
	f.Fuzz(func(t *testing.T, s string) {
		out := termtext.Sanitize(s)
		if again := termtext.Sanitize(out); again != out {
			t.Fatalf("Sanitize(%q) = %q, not idempotent: again %q", s, out, again)
		}
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == 0x1b {
				j := strings.IndexByte(out[i:], 'm')
				if j < 0 || out[i+1] != '[' || strings.ContainsFunc(out[i+2:i+j], func(r rune) bool { return (r < '0' || r > '9') && r != ';' && r != ':' }) {
					t.Fatalf("Sanitize(%q) = %q keeps a non-SGR escape at %d", s, out, i)
				}
				continue
			}
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("Sanitize(%q) = %q keeps control byte %#x", s, out, c)
			}
		}
		for _, r := range out {
			if r >= 0x80 && r < 0xa0 {
				t.Fatalf("Sanitize(%q) = %q keeps C1 %U", s, out, r)
			}
		}
	})
}
