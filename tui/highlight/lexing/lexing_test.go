package lexing

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentcli/agent/tui/highlight"
)

// TestLines: a known language is split into classed spans line by line;
// the text is kept whole; an unknown one is refused.
func TestLines(t *testing.T) {
	var h Lexer
	code := "package main\n\n// hi\nfunc main() { x := \"s\" + 42 }\n"
	lines, ok := h.Lines("go", code)
	if !ok {
		t.Fatal("go is not highlighted")
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4: %v", len(lines), lines)
	}
	var back []string
	classes := map[highlight.Class]string{}
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
	for c, want := range map[highlight.Class]string{highlight.Keyword: "package", highlight.Comment: "// hi", highlight.String: `"s"`, highlight.Number: "42", highlight.Function: "main"} {
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
	if lines, _ := h.Lines("diff", "+added\n-removed\n"); lines[0][0].Class != highlight.Inserted || lines[1][0].Class != highlight.Deleted {
		t.Errorf("diff: %v", lines)
	}
}

// TestServe answers each request line with its response line, in order,
// and ends with its input; a line that is not JSON is an error.
func TestServe(t *testing.T) {
	var in strings.Builder
	for _, r := range []highlight.Request{{Lang: "go", Code: "x := 1\n"}, {Lang: "klingon", Code: "qapla'"}, {Lang: "diff", Code: "+a\n"}} {
		b, _ := json.Marshal(r)
		in.Write(append(b, '\n'))
	}
	var out strings.Builder
	if err := Serve(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	var got []highlight.Response
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var r highlight.Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if len(got) != 3 || !got[0].OK || got[1].OK || !got[2].OK || got[2].Lines[0][0].Class != highlight.Inserted {
		t.Fatalf("responses: %+v", got)
	}
	if err := Serve(strings.NewReader("{\n"), &out); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("Serve of a bad line: %v", err)
	}
}

// BenchmarkFirstCodeBlock is the first code block's lexing: a new lexer
// builds its registry (parsing the XML definitions' headers) and compiles
// the language's rules (agent-highlight's start comes on top).
func BenchmarkFirstCodeBlock(b *testing.B) {
	code := "def f(x):\n    return x * 2  # double\n"
	for b.Loop() {
		var h Lexer
		if _, ok := h.Lines("python", code); !ok {
			b.Fatal("python")
		}
	}
}

// BenchmarkNextCodeBlock is a code block's cost once its lexer is built.
func BenchmarkNextCodeBlock(b *testing.B) {
	var h Lexer
	code := strings.Repeat("func f(x int) int { return x * 2 } // double\n", 20)
	h.Lines("go", code)
	for b.Loop() {
		h.Lines("go", code)
	}
}
