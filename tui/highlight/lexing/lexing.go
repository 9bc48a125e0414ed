// Package lexing is agent-highlight's side of the chat's code colours: it
// lexes code with chroma's lexing engine and a curated set of its lexers
// (the XML definitions of chroma v2.27.0 in lexers/, MIT, see
// lexers/COPYING, and Go's rules in golang.go), registered in a registry
// of the [Lexer]'s own on the first block. chroma's lexers and styles
// packages are not imported: their package-level registries are built at
// start-up in every process that links them. Only cmd/agent-highlight
// links this package, so agent links neither chroma nor regexp2, whose
// code and init every agent process would pay (package highlight).
package lexing

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

	"github.com/agentcli/agent/tui/highlight"
)

//go:embed lexers/*.xml
var definitions embed.FS

// Lexer lexes code blocks. The zero value is ready: nothing is built
// before the first [Lexer.Lines]. It is safe for concurrent use.
type Lexer struct {
	once sync.Once
	reg  *chroma.LexerRegistry
	mu   sync.Mutex // chroma compiles a lexer's rules on its first use
}

func (x *Lexer) build() {
	x.reg = chroma.NewLexerRegistry()
	x.reg.Register(goLexer())
	paths, _ := fs.Glob(definitions, "lexers/*.xml")
	for _, p := range paths {
		l, err := chroma.NewXMLLexer(definitions, p)
		if err != nil {
			continue // a definition that does not load leaves its language plain
		}
		x.reg.Register(l)
	}
}

// Lines returns code split into lines of classed spans for the language
// lang (a name or alias: "go", "py", "sh", "diff", ...), or ok false when
// lang is none the lexer knows (the caller draws it plain).
func (x *Lexer) Lines(lang, code string) (lines [][]highlight.Span, ok bool) {
	if lang == "" {
		return nil, false
	}
	x.once.Do(x.build)
	l := x.reg.Get(lang)
	if l == nil || l == chroma.Lexer(nil) {
		return nil, false
	}
	if l.Config().Name == "fallback" {
		return nil, false
	}
	x.mu.Lock()
	it, err := l.Tokenise(nil, code)
	if err != nil {
		x.mu.Unlock()
		return nil, false
	}
	tokens := it.Tokens()
	x.mu.Unlock()
	for _, line := range chroma.SplitTokensIntoLines(tokens) {
		var spans []highlight.Span
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
			spans = append(spans, highlight.Span{Class: c, Text: text})
		}
		lines = append(lines, spans)
	}
	// A block ending in a newline gives no extra empty line.
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 && strings.HasSuffix(code, "\n") {
		lines = lines[:n-1]
	}
	return lines, true
}

// Serve answers the requests read from r (one JSON [highlight.Request] a
// line) with one JSON [highlight.Response] line each on w, until r ends.
func Serve(r io.Reader, w io.Writer) error {
	var x Lexer
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 64<<10), highlight.MaxRequest)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req highlight.Request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return fmt.Errorf("a request is not JSON: %w", err)
		}
		var resp highlight.Response
		resp.Lines, resp.OK = x.Lines(req.Lang, req.Code)
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return in.Err()
}

// classOf maps a chroma token type to the class the chat colours.
func classOf(t chroma.TokenType) highlight.Class {
	switch {
	case t == chroma.KeywordType || t == chroma.NameBuiltin || t == chroma.NameClass:
		return highlight.Type
	case t.InCategory(chroma.Keyword):
		return highlight.Keyword
	case t == chroma.NameFunction || t == chroma.NameFunctionMagic:
		return highlight.Function
	case t == chroma.NameTag:
		return highlight.Tag
	case t == chroma.NameAttribute || t == chroma.NameDecorator:
		return highlight.Attribute
	case t.InSubCategory(chroma.LiteralString):
		return highlight.String
	case t.InSubCategory(chroma.LiteralNumber):
		return highlight.Number
	case t.InCategory(chroma.Comment):
		return highlight.Comment
	case t == chroma.GenericInserted:
		return highlight.Inserted
	case t == chroma.GenericDeleted:
		return highlight.Deleted
	case t == chroma.GenericHeading || t == chroma.GenericSubheading:
		return highlight.Heading
	}
	return highlight.Plain
}
