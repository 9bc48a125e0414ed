package redact_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/redact"
)

// TestPrefixCaseAndPercentEchoes: a server that echoes the key's first 16
// characters, the key upper- or lower-cased, or URL-encoded in any style
// (every byte escaped, lower-case hex) gets it masked; the masked part
// runs as far as the echo follows the key. Fewer than 12 characters of a
// key are ordinary text.
func TestPrefixCaseAndPercentEchoes(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-AbCdEfGh/IjKlMnOp+QrStUvWx0123"
	s := redact.New(key)
	var every strings.Builder
	for i := range len(key) {
		fmt.Fprintf(&every, "%%%02X", key[i])
	}
	for _, echo := range []string{
		key[:16],
		key[:12],
		key[:30] + "...",
		strings.ToUpper(key),
		strings.ToLower(key),
		strings.ToUpper(key[:20]),
		every.String(),
		strings.ToLower(every.String()),
		strings.ToLower(url.QueryEscape(key)),
		url.PathEscape(strings.ToUpper(key)),
	} {
		got := s.String("Incorrect API key provided: " + echo + " end")
		if !strings.Contains(got, redact.Mask) {
			t.Errorf("echo %q passed unmasked: %q", echo, got)
			continue
		}
		for i := 0; i+5 <= len(key); i++ { // nothing of the key is left beside the mask
			if strings.Contains(strings.ToLower(got), strings.ToLower(key[i:i+5])) {
				t.Errorf("echo %q: %q of the key is still there: %q", echo, key[i:i+5], got)
				break
			}
		}
	}
	for _, ordinary := range []string{key[:11], "sk-proj-other-key-entirely", "SK-PROJ-ABC"} {
		if got := s.String("text " + ordinary + " end"); got != "text "+ordinary+" end" {
			t.Errorf("%q changed: %q", ordinary, got)
		}
	}
	// The stream writer holds back and masks the same echoes split
	// across writes.
	for _, echo := range []string{key[:16], strings.ToUpper(key)} {
		text := "body " + echo + " tail"
		for cut := 0; cut <= len(text); cut++ {
			var b strings.Builder
			w := s.Writer(&b)
			_, _ = w.Write([]byte(text[:cut]))
			_, _ = w.Write([]byte(text[cut:]))
			_ = w.Flush()
			if want := "body " + redact.Mask + " tail"; b.String() != want {
				t.Errorf("echo %q cut at %d: wrote %q, want %q", echo, cut, b.String(), want)
				break
			}
		}
	}
}
