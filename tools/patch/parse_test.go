package patch_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools/patch"
)

func TestParse(t *testing.T) {
	t.Parallel()
	addA := &patch.Patch{Ops: []patch.FileOp{{Action: patch.Add, Path: "a.txt", Lines: []string{"hi"}}}}
	upd := func(chunks ...patch.Chunk) *patch.Patch {
		return &patch.Patch{Ops: []patch.FileOp{{Action: patch.Update, Path: "f", Chunks: chunks}}}
	}
	line := func(k patch.LineKind, s string) patch.Line { return patch.Line{Kind: k, Text: s} }
	tests := []struct {
		name, in string
		want     *patch.Patch
	}{
		{"minimal", "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n", addA},
		{"no final newline", "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch", addA},
		{"crlf", "*** Begin Patch\r\n*** Add File: a.txt\r\n+hi\r\n*** End Patch\r\n", addA},
		{"padded markers", "  *** Begin Patch \n\t*** Add File:   a.txt  \n+hi\n *** End Patch \n\n", addA},
		{"no space after colon", "*** Begin Patch\n*** Add File:a.txt\n+hi\n*** End Patch\n", addA},
		{"heredoc", "<<EOF\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF\n", addA},
		{"heredoc quoted", "<<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF", addA},
		{"heredoc double quoted", "<<\"EOF\"\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF\n", addA},
		{"heredoc with command", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nPATCH\n", addA},
		{"heredoc dash", "applypatch <<-EOF\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n  EOF  \n", addA},
		{"heredoc without end", "<<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n", addA},
		{"code fence", "```diff\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n```\n", addA},
		{"fenced heredoc", "```\napply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF\n```", addA},
		{"blank lines between sections", "*** Begin Patch\n\n*** Add File: a.txt\n+hi\n\n\n*** Delete File: b\n\n*** End Patch\n",
			&patch.Patch{Ops: []patch.FileOp{addA.Ops[0], {Action: patch.Delete, Path: "b"}}}},
		{"blank line inside added file", "*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** End Patch\n",
			&patch.Patch{Ops: []patch.FileOp{{Action: patch.Add, Path: "a", Lines: []string{"x", "", "y"}}}}},
		{"empty added file", "*** Begin Patch\n*** Add File: a\n*** End Patch\n",
			&patch.Patch{Ops: []patch.FileOp{{Action: patch.Add, Path: "a"}}}},
		{"first chunk without @@", "*** Begin Patch\n*** Update File: f\n x\n-y\n+z\n*** End Patch\n",
			upd(patch.Chunk{Lines: []patch.Line{line(' ', "x"), line('-', "y"), line('+', "z")}})},
		{"stacked @@ headers", "*** Begin Patch\n*** Update File: f\n@@ class A\n@@ \t def m():\n-a\n@@\n+b\n*** End Patch\n",
			upd(patch.Chunk{Context: []string{"class A", "def m():"}, Lines: []patch.Line{line('-', "a")}},
				patch.Chunk{Lines: []patch.Line{line('+', "b")}})},
		{"unified range header", "*** Begin Patch\n*** Update File: f\n@@ -12,7 +12,8 @@ func f() {\n-a\n@@ -1 +1 @@\n-b\n*** End Patch\n",
			upd(patch.Chunk{Context: []string{"func f() {"}, Lines: []patch.Line{line('-', "a")}},
				patch.Chunk{Lines: []patch.Line{line('-', "b")}})},
		{"empty line is context", "*** Begin Patch\n*** Update File: f\n@@\n a\n\n-b\n*** End Patch\n",
			upd(patch.Chunk{Lines: []patch.Line{line(' ', "a"), line(' ', ""), line('-', "b")}})},
		{"end of file", "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End of File\n@@ x\n+c\n*** End Patch\n",
			upd(patch.Chunk{Lines: []patch.Line{line('-', "a"), line('+', "b")}, EOF: true},
				patch.Chunk{Context: []string{"x"}, Lines: []patch.Line{line('+', "c")}})},
		{"move only", "*** Begin Patch\n*** Update File: f\n*** Move to: g/h\n*** End Patch\n",
			&patch.Patch{Ops: []patch.FileOp{{Action: patch.Update, Path: "f", MoveTo: "g/h"}}}},
		{"marker-like lines in contents", "*** Begin Patch\n*** Add File: a\n+*** End Patch\n*** Update File: f\n@@\n *** End of File\n+@@ x\n*** End Patch\n",
			&patch.Patch{Ops: []patch.FileOp{{Action: patch.Add, Path: "a", Lines: []string{"*** End Patch"}},
				{Action: patch.Update, Path: "f", Chunks: []patch.Chunk{{Lines: []patch.Line{line(' ', "*** End of File"), line('+', "@@ x")}}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := patch.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Parse (-want +got):\n%s", d)
			}
		})
	}
}

// TestRoundTrip checks that every testdata patch re-renders to canonical
// text that parses to the same Patch.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.patch"))
	for _, f := range files {
		p, err := patch.Parse(readFile(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		q, err := patch.Parse(p.String())
		if err != nil {
			t.Fatalf("%s: Parse(String()) = %v\n%s", f, err, p.String())
		}
		if d := cmp.Diff(p, q); d != "" {
			t.Errorf("%s: round trip (-parsed +reparsed):\n%s", f, d)
		}
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	p, err := patch.Parse("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Add File: c\n+x\n*** Delete File: a\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, p.Paths()); d != "" {
		t.Errorf("Paths (-want +got):\n%s", d)
	}
}
