package patch

import (
	"slices"
	"strings"
	"testing"
)

// FuzzApply builds a chunk that replaces del lines at start of content
// with ins and checks that updateContent splices exactly there (the first
// exact occurrence), keeps every other line and its ending, and returns a
// diff script whose two sides are the old and the new content.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", uint8(1), uint8(1), "B")
	f.Add("a\r\nb\r\nc", uint8(2), uint8(1), "x\ny")
	f.Add("x\nx\nx", uint8(2), uint8(1), "")
	f.Add("", uint8(0), uint8(0), "new")
	f.Add("no newline", uint8(0), uint8(0), "tail\n")
	f.Add("a\n\n\nb\n", uint8(1), uint8(2), " \t")
	f.Fuzz(func(t *testing.T, content string, start, del uint8, ins string) {
		lines := splitLines(content)
		texts := textsOf(lines)
		s := int(start) % (len(texts) + 1)
		n := int(del) % (len(texts) - s + 1)
		var add []string
		if ins != "" {
			for _, l := range strings.Split(ins, "\n") {
				add = append(add, strings.TrimRight(l, "\r"))
			}
		}
		if n == 0 && len(add) == 0 {
			return // the parser never yields an empty chunk
		}
		var ops []Line
		for _, l := range texts[s : s+n] {
			ops = append(ops, Line{Kind: Remove, Text: l})
		}
		for _, l := range add {
			ops = append(ops, Line{Kind: Insert, Text: l})
		}
		got, script, err := updateContent(content, []Chunk{{Lines: ops}})
		if err != nil {
			t.Fatalf("updateContent: %v", err)
		}
		at := len(texts) // a pure insertion appends
		for i := 0; n > 0 && i < at; i++ {
			if slices.Equal(texts[i:i+n], texts[s:s+n]) {
				at = i
			}
		}
		// An unterminated last line ending in "\r" that gains a "\n" reads
		// back as a CRLF line: compare without trailing CRs.
		want := noCR(slices.Concat(texts[:at], add, texts[at+n:]))
		gotLines := splitLines(got)
		if gotTexts := noCR(textsOf(gotLines)); !slices.Equal(gotTexts, want) {
			t.Fatalf("new lines = %q; want %q", gotTexts, want)
		}
		for i, l := range gotLines[:max(len(gotLines)-1, 0)] {
			if l.eol == "" {
				t.Fatalf("line %d has no ending: %q", i+1, got)
			}
		}
		if strings.HasSuffix(content, "\n") && got != "" && !strings.HasSuffix(got, "\n") {
			t.Fatalf("final newline lost: %q -> %q", content, got)
		}
		oldSide, newSide := sides(script)
		if oldSide != content || newSide != got {
			t.Fatalf("script sides = %q, %q; want %q, %q", oldSide, newSide, content, got)
		}
		_ = Change{Action: Update, Path: "f", script: script}.Diff()
	})
}

// FuzzUpdate parses arbitrary chunk text against arbitrary content and
// checks that applying never panics and that the diff script is coherent.
func FuzzUpdate(f *testing.F) {
	f.Add("a\nb\n", "@@\n-a\n+A\n")
	f.Add("x\r\ny", "@@ x\n y\n+z\n*** End of File\n")
	f.Add("\tif x {\n\t\treturn\n\t}\n", "@@\n if x {\n-return\n+return 1\n+// done\n }\n")
	f.Fuzz(func(t *testing.T, content, chunks string) {
		p, err := Parse("*** Begin Patch\n*** Update File: f\n" + chunks + "\n*** End Patch")
		if err != nil || len(p.Ops) != 1 || p.Ops[0].Action != Update {
			return
		}
		got, script, err := updateContent(content, p.Ops[0].Chunks)
		if err != nil {
			if _, ok := err.(*chunkError); !ok {
				t.Fatalf("error %T is not a *chunkError: %v", err, err)
			}
			return
		}
		oldSide, newSide := sides(script)
		if oldSide != content || newSide != got {
			t.Fatalf("script sides = %q, %q; want %q, %q", oldSide, newSide, content, got)
		}
		_ = Change{Action: Update, Path: "f", script: script}.Diff()
	})
}

func noCR(texts []string) []string {
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = strings.TrimRight(s, "\r")
	}
	return out
}

func textsOf(lines []fileLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// sides reassembles the old and the new content from a diff script.
func sides(script []diffLine) (string, string) {
	var o, n strings.Builder
	for _, d := range script {
		if d.kind != Insert {
			o.WriteString(d.text + d.eol)
		}
		if d.kind != Remove {
			n.WriteString(d.text + d.eol)
		}
	}
	return o.String(), n.String()
}
