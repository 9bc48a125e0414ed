package patch_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools/patch"
)

// FuzzParse checks that Parse never panics, that its errors are
// *ParseError with a line inside the input, and that a parsed patch
// renders to canonical text that parses back to the same Patch.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"*.patch", "parse/*.patch"} {
		files, _ := filepath.Glob(filepath.Join("testdata", glob))
		for _, file := range files {
			f.Add(readFile(f, file))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := patch.Parse(text)
		if err != nil {
			var pe *patch.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error %T is not a *ParseError: %v", err, err)
			}
			if n := strings.Count(text, "\n") + 2; pe.Line < 1 || pe.Line > n {
				t.Fatalf("ParseError.Line = %d; want within [1, %d]", pe.Line, n)
			}
			return
		}
		canon := p.String()
		q, err := patch.Parse(canon)
		if err != nil {
			t.Fatalf("Parse(String()) = %v\ncanonical:\n%s", err, canon)
		}
		if d := cmp.Diff(p, q); d != "" {
			t.Fatalf("round trip (-parsed +reparsed):\n%s\ncanonical:\n%s", d, canon)
		}
		if again := q.String(); again != canon {
			t.Fatalf("String is not stable:\n%q\n%q", canon, again)
		}
	})
}
