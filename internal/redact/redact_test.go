package redact_test

import (
	"encoding/base64"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentcli/agent/internal/redact"
)

const canary = "sk-test-canary-0000"

func TestString(t *testing.T) {
	t.Parallel()
	s := redact.New(canary, "  short ", "refresh-test-0000-long", `tok"en\with<json>`)
	cases := []struct{ in, want string }{
		{"no secret here", "no secret here"},
		{"key " + canary + " and again " + canary, "key [REDACTED] and again [REDACTED]"},
		{"short stays", "short stays"}, // below MinLen
		{`{"body":"Incorrect API key provided: ` + canary + `"}`, `{"body":"Incorrect API key provided: [REDACTED]"}`},
		{"Bearer refresh-test-0000-long!", "Bearer [REDACTED]!"},
		{`{"v":"tok\"en\\with\u003cjson\u003e"}`, `{"v":"[REDACTED]"}`}, // the JSON-escaped form
		{`raw tok"en\with<json>`, "raw [REDACTED]"},
	}
	for _, c := range cases {
		if got := s.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var nilSet *redact.Set
	if got := nilSet.String(canary); got != canary {
		t.Errorf("nil set changed the text: %q", got)
	}
}

func TestLongestWins(t *testing.T) {
	t.Parallel()
	s := redact.New("abcdefgh", "abcdefgh-ijkl")
	if got := s.String("x abcdefgh-ijkl y abcdefgh"); got != "x [REDACTED] y [REDACTED]" {
		t.Errorf("got %q", got)
	}
}

// TestWriterSplitSecret: a secret cut across writes, at every possible
// place, never reaches the underlying writer, and the text around it
// arrives whole once flushed.
func TestWriterSplitSecret(t *testing.T) {
	t.Parallel()
	s := redact.New(canary)
	text := "before " + canary + " after s"
	for cut1 := 0; cut1 <= len(text); cut1++ {
		for cut2 := cut1; cut2 <= len(text); cut2++ {
			var b strings.Builder
			w := s.Writer(&b)
			for _, part := range []string{text[:cut1], text[cut1:cut2], text[cut2:]} {
				if _, err := w.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(b.String(), canary) {
					t.Fatalf("cuts %d,%d: the secret got through: %q", cut1, cut2, b.String())
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if want := "before [REDACTED] after s"; b.String() != want {
				t.Fatalf("cuts %d,%d: wrote %q, want %q", cut1, cut2, b.String(), want)
			}
		}
	}
}

func TestWriterPassesOrdinaryTextAtOnce(t *testing.T) {
	t.Parallel()
	s := redact.New(canary)
	var b strings.Builder
	w := s.Writer(&b)
	w.Write([]byte("hello world\n"))
	if b.String() != "hello world\n" {
		t.Errorf("held back ordinary text: %q", b.String())
	}
	w.Write([]byte("ends with sk"))
	if b.String() != "hello world\nends with " {
		t.Errorf("wrote %q, want the possible start of a secret held back", b.String())
	}
	w.Write([]byte("y is blue\n"))
	if b.String() != "hello world\nends with sky is blue\n" {
		t.Errorf("wrote %q", b.String())
	}
}

// TestAddWhileWriting: secrets learned later (a refreshed token) are
// masked from then on; concurrent use is safe (run with -race).
func TestAddWhileWriting(t *testing.T) {
	t.Parallel()
	s := redact.New()
	var mu sync.Mutex
	var b strings.Builder
	w := s.Writer(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return b.Write(p)
	}))
	w.Write([]byte("early " + canary + "\n"))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.Add("access-test-0001") }()
	go func() { defer wg.Done(); w.Write([]byte("x\n")) }()
	wg.Wait()
	s.Add(canary)
	w.Write([]byte("late " + canary + " access-test-0001\n"))
	w.Flush()
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(b.String(), "early "+canary+"\n") || !strings.HasSuffix(b.String(), "late [REDACTED] [REDACTED]\n") {
		t.Errorf("wrote %q", b.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestEncodedEchoes: a secret echoed base64-encoded (alone, or inside a
// longer encoded text such as a Basic header, at every alignment, in both
// alphabets) or URL-encoded is masked too.
func TestEncodedEchoes(t *testing.T) {
	t.Parallel()
	secret := "sk-test/key+with?odd&chars=0000"
	s := redact.New(secret)
	for _, echo := range []string{
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.URLEncoding.EncodeToString([]byte(secret)),
		base64.StdEncoding.EncodeToString([]byte("user:" + secret)),
		base64.StdEncoding.EncodeToString([]byte("ab:" + secret + "\n")),
		base64.RawURLEncoding.EncodeToString([]byte("x" + secret + "yz")),
		url.QueryEscape(secret),
		url.PathEscape(secret),
	} {
		got := s.String("Authorization: Basic " + echo + " end")
		if !strings.Contains(got, redact.Mask) {
			t.Errorf("echo %q passed unmasked: %q", echo, got)
		}
		if core := echo[4 : len(echo)-4]; strings.Contains(got, core) {
			t.Errorf("echo %q: its middle %q is still there: %q", echo, core, got)
		}
	}
	if got := s.String("ordinary text aGVsbG8gd29ybGQ="); got != "ordinary text aGVsbG8gd29ybGQ=" {
		t.Errorf("ordinary base64 changed: %q", got)
	}
}

// TestLongTextNotCopied: a long text holding no secret passes through
// String and a Writer without being copied (a 10 MiB answer or command
// output used to be copied and scanned twice per sink), and one holding a
// secret is still masked wherever it sits in it.
func TestLongTextNotCopied(t *testing.T) {
	s := redact.New(canary, "refresh-test-0000-long")
	long := strings.Repeat("lorem ipsum sk-test dolor sit amet\n", 1<<15) // ~1.1 MB, secret starts but no secret
	if n := testing.AllocsPerRun(5, func() { _ = s.String(long) }); n != 0 {
		t.Errorf("String of a clean %d-byte text: %v allocations; want 0", len(long), n)
	}
	p := []byte(long)
	if n := testing.AllocsPerRun(5, func() { _ = s.Bytes(p) }); n != 0 {
		t.Errorf("Bytes of a clean %d-byte text: %v allocations; want 0", len(long), n)
	}
	if got := string(s.Bytes([]byte("x " + canary))); got != "x "+redact.Mask {
		t.Errorf("Bytes = %q; want the secret masked", got)
	}
	var sink countWriter
	w := s.Writer(&sink)
	if n := testing.AllocsPerRun(5, func() { w.Write(p) }); n > 1 {
		t.Errorf("Writer.Write of a clean %d-byte text: %v allocations; want at most 1 (the held-back end)", len(long), n)
	}
	for _, at := range []int{0, len(long) / 2, len(long)} {
		text := long[:at] + canary + long[at:]
		if got := s.String(text); strings.Contains(got, canary) || len(got) != len(long)+len(redact.Mask) {
			t.Errorf("secret at %d: String kept it or changed other text (len %d)", at, len(got))
		}
		var b strings.Builder
		w := s.Writer(&b)
		w.Write([]byte(text[:at+3])) // the secret split across writes
		w.Write([]byte(text[at+3:]))
		w.Flush()
		if b.String() != s.String(text) {
			t.Errorf("secret at %d: Writer wrote other text than String", at)
		}
	}
}

// TestWriterMatchesString: whatever the cuts between writes, a Writer
// writes exactly what String makes of the whole text. (Not when one secret
// is the start of another: a Writer masks the shorter as soon as it is
// whole.)
func TestWriterMatchesString(t *testing.T) {
	t.Parallel()
	s := redact.New(canary, "abcdefgh-ijkl", "zabcdefgh")
	text := "sk-te abcdefgh-ijk zabcdefgh-ijkl " + canary + "sk-test-canary-000 abcdefg" + canary
	want := s.String(text)
	for step := 1; step <= len(text); step++ {
		var b strings.Builder
		w := s.Writer(&b)
		for i := 0; i < len(text); i += step {
			w.Write([]byte(text[i:min(i+step, len(text))]))
		}
		w.Flush()
		if b.String() != want {
			t.Fatalf("writes of %d bytes: wrote %q, want %q", step, b.String(), want)
		}
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// BenchmarkStringClean10MiB is the masking of a 10 MiB answer or command
// output that holds no secret, with a set as agent exec holds one (an API
// key and its encoded forms).
func BenchmarkStringClean10MiB(b *testing.B) {
	s := redact.New("sk-proj-"+strings.Repeat("AbCdEfGh0123", 13), "refresh-test-0000-long")
	text := strings.Repeat("lorem ipsum dolor sit amet, sk consectetur\n", 10<<20/43)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.String(text)
	}
}

// BenchmarkWriterClean10MiB is one 10 MiB write through a masking Writer.
func BenchmarkWriterClean10MiB(b *testing.B) {
	s := redact.New("sk-proj-"+strings.Repeat("AbCdEfGh0123", 13), "refresh-test-0000-long")
	p := []byte(strings.Repeat("lorem ipsum dolor sit amet, sk consectetur\n", 10<<20/43))
	w := s.Writer(&countWriter{})
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		w.Write(p)
	}
}

// TestWriterSecretStartingALongerOne: where one secret is the start of
// another, a write ending with the shorter whole is held back until the
// next write shows whether the longer follows, so no tail of the longer
// one is printed; flushed, the shorter is masked.
func TestWriterSecretStartingALongerOne(t *testing.T) {
	short, long := "sk-short-0001", "sk-short-0001-and-its-tail"
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{"key " + short, "-and-its-tail done"}, "key [REDACTED] done"},
		{[]string{"key " + short, " done"}, "key [REDACTED] done"},
		{[]string{"key " + short}, "key [REDACTED]"},
		{[]string{"key sk-sho", "rt-0001-and", "-its-tail."}, "key [REDACTED]."},
	} {
		var b strings.Builder
		w := redact.New(short, long).Writer(&b)
		for _, s := range tc.writes {
			w.Write([]byte(s))
		}
		w.Flush()
		if b.String() != tc.want {
			t.Errorf("%q: wrote %q; want %q", tc.writes, b.String(), tc.want)
		}
	}
}
