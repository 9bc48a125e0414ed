package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines is the longest a function may be, tests included.
const maxFuncLines = 90

// TestFunctionLength: no function of the module (declared or literal,
// tests included) is longer than 90 lines, from its func keyword to its
// closing brace.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range goFiles(t) {
		file, err := parser.ParseFile(fset, filepath.Join("../..", f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a func literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, name = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			}
			if body == nil {
				return true
			}
			start := fset.Position(n.Pos()).Line
			if lines := fset.Position(body.Rbrace).Line - start + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines; at most %d", f, start, name, lines, maxFuncLines)
			}
			return true
		})
	}
}
