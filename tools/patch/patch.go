package patch

import (
	"strings"
)

// Patch is a parsed apply_patch document: file operations applied in order.
// The zero value is an empty patch, which [Apply] refuses.
type Patch struct {
	// Ops are the file operations, in the order they appear in the patch.
	Ops []FileOp
}

// Action is what a [FileOp] does to its file.
type Action int

// The file actions of the patch format.
const (
	// Add creates a file ("*** Add File: path").
	Add Action = iota + 1
	// Delete removes a file ("*** Delete File: path").
	Delete
	// Update edits a file in place, optionally renaming it
	// ("*** Update File: path", then "*** Move to: path").
	Update
)

// String returns "add", "delete" or "update".
func (a Action) String() string {
	switch a {
	case Add:
		return "add"
	case Delete:
		return "delete"
	case Update:
		return "update"
	}
	return "unknown"
}

// FileOp is one file section of a patch.
type FileOp struct {
	// Action says what to do with the file.
	Action Action
	// Path is the file's path as written in the patch, surrounding
	// whitespace removed. It is resolved against the root by [Apply].
	Path string
	// MoveTo is the new path of an [Update] that renames the file, or "".
	MoveTo string
	// Lines are the contents of an [Add]ed file, one element per line,
	// without the leading "+" and without line endings. Every line is
	// written with a trailing newline.
	Lines []string
	// Chunks are the edits of an [Update], in file order.
	Chunks []Chunk
}

// Chunk is one contiguous edit of an [Update]: the lines to find (context
// and removed lines, in order) and what replaces them. When the lines were
// found only by ignoring leading whitespace, an added line whose
// indentation starts with that of the nearest non-blank old line of the
// chunk gets that line's indentation in the file instead (the model wrote
// spaces where the file has tabs, or dropped the indentation).
type Chunk struct {
	// Context holds the "@@ text" headers before the chunk, in order. Each
	// is searched for, starting after the previous one, to narrow where the
	// chunk's lines are looked for (a class, then a method, say). Headers
	// never have surrounding whitespace; a bare "@@" adds none.
	Context []string
	// Lines are the chunk's lines, in patch order.
	Lines []Line
	// EOF is set by "*** End of File": the chunk's old lines must be the
	// last lines of the file.
	EOF bool
}

// LineKind is the prefix of a line in a [Chunk].
type LineKind byte

// The line kinds of a chunk, spelled as their prefix character.
const (
	// Keep is a context line, kept as is (" ").
	Keep LineKind = ' '
	// Remove is a line deleted from the file ("-").
	Remove LineKind = '-'
	// Insert is a line added to the file ("+").
	Insert LineKind = '+'
)

// Line is one line of a [Chunk].
type Line struct {
	// Kind is the line's prefix.
	Kind LineKind
	// Text is the line without its prefix and without a line ending.
	Text string
}

// oldLines returns the lines a chunk expects to find: its context and
// removed lines.
func (c *Chunk) oldLines() []string {
	var out []string
	for _, l := range c.Lines {
		if l.Kind != Insert {
			out = append(out, l.Text)
		}
	}
	return out
}

// Paths returns the paths p reads or writes, as written in the patch, in
// order of first appearance (a move contributes both its paths). Callers use
// it to ask for approval before [Apply].
func (p *Patch) Paths() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, op := range p.Ops {
		add(op.Path)
		add(op.MoveTo)
	}
	return out
}

// String renders p as canonical patch text: no wrapper, LF line endings, a
// "@@" header on every chunk and a final newline. Parsing the result yields
// a Patch equal to p when p came from [Parse].
func (p *Patch) String() string {
	var b strings.Builder
	b.WriteString(beginMarker + "\n")
	for _, op := range p.Ops {
		switch op.Action {
		case Add:
			b.WriteString(addMarker + op.Path + "\n")
			for _, l := range op.Lines {
				b.WriteString("+" + l + "\n")
			}
		case Delete:
			b.WriteString(deleteMarker + op.Path + "\n")
		case Update:
			b.WriteString(updateMarker + op.Path + "\n")
			if op.MoveTo != "" {
				b.WriteString(moveMarker + op.MoveTo + "\n")
			}
			for _, c := range op.Chunks {
				writeChunk(&b, c)
			}
		}
	}
	b.WriteString(endMarker + "\n")
	return b.String()
}

func writeChunk(b *strings.Builder, c Chunk) {
	if len(c.Context) == 0 {
		b.WriteString("@@\n")
	}
	for _, h := range c.Context {
		b.WriteString("@@ " + h + "\n")
	}
	for _, l := range c.Lines {
		b.WriteByte(byte(l.Kind))
		b.WriteString(l.Text + "\n")
	}
	if c.EOF {
		b.WriteString(eofMarker + "\n")
	}
}
