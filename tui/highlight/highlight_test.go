package highlight

import (
	"strings"
	"testing"
)

// TestLines: a known language is split into classed spans line by line;
// the text is kept whole; an unknown one is refused.
func TestLines(t *testing.T) {
	var h Highlighter
	code := "package main\n\n// hi\nfunc main() { x := \"s\" + 42 }\n"
	lines, ok := h.Lines("go", code)
	if !ok {
		t.Fatal("go is not highlighted")
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4: %v", len(lines), lines)
	}
	var back []string
	classes := map[Class]string{}
	for _, l := range lines {
		var b strings.Builder
		for _, s := range l {
			b.WriteString(s.Text)
			classes[s.Class] += s.Text
		}
		back = append(back, b.String())
	}
	if got := strings.Join(back, "\n") + "\n"; got != code {
		t.Errorf("text changed: %q", got)
	}
	for c, want := range map[Class]string{Keyword: "package", Comment: "// hi", String: `"s"`, Number: "42", Function: "main"} {
		if !strings.Contains(classes[c], want) {
			t.Errorf("class %d = %q, want it to hold %q", c, classes[c], want)
		}
	}
	for _, lang := range []string{"python", "py", "sh", "bash", "diff", "json", "yaml", "rust", "ts", "javascript", "c", "cpp", "java", "toml", "sql"} {
		if _, ok := h.Lines(lang, "x = 1\n"); !ok {
			t.Errorf("%s is not highlighted", lang)
		}
	}
	for _, lang := range []string{"", "klingon", "text"} {
		if _, ok := h.Lines(lang, "x"); ok {
			t.Errorf("%q was highlighted", lang)
		}
	}
	if lines, _ := h.Lines("diff", "+added\n-removed\n"); lines[0][0].Class != Inserted || lines[1][0].Class != Deleted {
		t.Errorf("diff: %v", lines)
	}
}

// BenchmarkFirstCodeBlock is the first code block's extra cost: a new
// highlighter builds its registry (parsing the XML definitions' headers)
// and compiles the language's rules.
func BenchmarkFirstCodeBlock(b *testing.B) {
	code := "def f(x):\n    return x * 2  # double\n"
	for b.Loop() {
		var h Highlighter
		if _, ok := h.Lines("python", code); !ok {
			b.Fatal("python")
		}
	}
}

// BenchmarkNextCodeBlock is a code block's cost once its lexer is built.
func BenchmarkNextCodeBlock(b *testing.B) {
	var h Highlighter
	code := strings.Repeat("func f(x int) int { return x * 2 } // double\n", 20)
	h.Lines("go", code)
	for b.Loop() {
		h.Lines("go", code)
	}
}
