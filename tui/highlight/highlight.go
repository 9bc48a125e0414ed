// Package highlight colours the chat's code blocks. It uses chroma's
// lexing engine with a curated set of its lexers (the XML definitions of
// chroma v2.27.0 in lexers/, MIT, see lexers/COPYING, and Go's rules in
// golang.go), registered in a registry of the [Highlighter]'s own when
// the first code block is drawn. chroma's lexers and styles packages are
// not imported: their package-level registries are built at start-up in
// every process of the binary (agent exec included), the cost that kept
// glamour out (docs/architecture.md).
package highlight

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed lexers/*.xml
var definitions embed.FS

// Class is what a piece of code is, as the chat colours it.
type Class int

// The classes, from chroma's token categories.
const (
	Plain Class = iota
	Keyword
	Type
	Function
	String
	Number
	Comment
	Tag
	Attribute
	Inserted
	Deleted
	Heading
)

// Span is a run of code of one class.
type Span struct {
	Class Class
	Text  string
}

// Highlighter lexes code blocks. The zero value is ready: nothing is
// built before the first [Highlighter.Lines]. It is safe for concurrent
// use.
type Highlighter struct {
	once sync.Once
	reg  *chroma.LexerRegistry
	mu   sync.Mutex // chroma compiles a lexer's rules on its first use
}

func (h *Highlighter) build() {
	h.reg = chroma.NewLexerRegistry()
	h.reg.Register(goLexer())
	paths, _ := fs.Glob(definitions, "lexers/*.xml")
	for _, p := range paths {
		l, err := chroma.NewXMLLexer(definitions, p)
		if err != nil {
			continue // a definition that does not load leaves its language plain
		}
		h.reg.Register(l)
	}
}

// Lines returns code split into lines of classed spans for the language
// lang (a fence's info string: "go", "py", "sh", "diff", ...), or ok false
// when lang is none the highlighter knows (the caller draws it plain).
func (h *Highlighter) Lines(lang, code string) (lines [][]Span, ok bool) {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i] // "go title=x", "python {linenos}"
	}
	if lang == "" {
		return nil, false
	}
	h.once.Do(h.build)
	l := h.reg.Get(lang)
	if l == nil || l == chroma.Lexer(nil) {
		return nil, false
	}
	if l.Config().Name == "fallback" {
		return nil, false
	}
	h.mu.Lock()
	it, err := l.Tokenise(nil, code)
	if err != nil {
		h.mu.Unlock()
		return nil, false
	}
	tokens := it.Tokens()
	h.mu.Unlock()
	for _, line := range chroma.SplitTokensIntoLines(tokens) {
		var spans []Span
		for _, t := range line {
			text := strings.TrimRight(t.Value, "\n")
			if text == "" {
				continue
			}
			c := classOf(t.Type)
			if n := len(spans); n > 0 && spans[n-1].Class == c {
				spans[n-1].Text += text
				continue
			}
			spans = append(spans, Span{Class: c, Text: text})
		}
		lines = append(lines, spans)
	}
	// A block ending in a newline gives no extra empty line.
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 && strings.HasSuffix(code, "\n") {
		lines = lines[:n-1]
	}
	return lines, true
}

// classOf maps a chroma token type to the class the chat colours.
func classOf(t chroma.TokenType) Class {
	switch {
	case t == chroma.KeywordType || t == chroma.NameBuiltin || t == chroma.NameClass:
		return Type
	case t.InCategory(chroma.Keyword):
		return Keyword
	case t == chroma.NameFunction || t == chroma.NameFunctionMagic:
		return Function
	case t == chroma.NameTag:
		return Tag
	case t == chroma.NameAttribute || t == chroma.NameDecorator:
		return Attribute
	case t.InSubCategory(chroma.LiteralString):
		return String
	case t.InSubCategory(chroma.LiteralNumber):
		return Number
	case t.InCategory(chroma.Comment):
		return Comment
	case t == chroma.GenericInserted:
		return Inserted
	case t == chroma.GenericDeleted:
		return Deleted
	case t == chroma.GenericHeading || t == chroma.GenericSubheading:
		return Heading
	}
	return Plain
}
