package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// classDeciders are the files that may tell retry classes apart: the
// classifier (which gives a failure its kind, and a kind its class) and
// the retry policy table (which says what each class does).
var classDeciders = []string{
	"modelclient/classify.go",
	"modelclient/classify_response.go",
	"provider/retry.go",
}

// kindWording lists the files that may compare a retryable kind to pick
// the words a person reads, never what a layer does.
var kindWording = map[string]string{
	"session/notice.go": `RetryLabel words a retry of a model at capacity ("Model at capacity; retrying")`,
}

var (
	classConsts = []string{"ClassTransport", "ClassServerError", "ClassRateLimit", "ClassOverloaded", "ClassIdle"}
	classNames  = []string{"transport", "server_error", "rate_limit", "overloaded", "idle"}
	classKinds  = []string{"KindTransport", "KindServerError", "KindIdle", "KindConnect", "KindRateLimited", "KindOverloaded"}
)

// TestClassBehaviourIsData: outside the classifier and the retry policy
// table, no code compares a retry class (a provider.Class* constant, a
// class name, the Class of a failure or a retry notice) or a retryable
// kind (modelclient.KindRateLimited, ...): a layer asks the table
// (provider.Behaviour, Failure.Behaviour) what a class does.
func TestClassBehaviourIsData(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || slices.Contains(classDeciders, rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, p := range classComparisons(f, rel) {
			t.Errorf("%s: %s", fset.Position(p.pos), p.msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files; want the module's (run from internal/archtest)", checked)
	}
}

type finding struct {
	pos token.Pos
	msg string
}

// classComparisons returns the comparisons of retry classes and
// retryable kinds in f, at rel.
func classComparisons(f *ast.File, rel string) []finding {
	c := classCheck{f: f, rel: rel}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		c.seesClasses = c.seesClasses || p == module+"/provider" || p == module+"/modelclient"
	}
	c.seesClasses = c.seesClasses || f.Name.Name == "provider" || f.Name.Name == "modelclient"
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				c.check(n, n.X, n.Y)
			}
		case *ast.SwitchStmt:
			if n.Tag != nil {
				c.check(n.Tag, n.Tag)
				for _, s := range n.Body.List {
					c.check(s, s.(*ast.CaseClause).List...)
				}
			}
		}
		return true
	})
	return c.found
}

type classCheck struct {
	f           *ast.File
	rel         string
	seesClasses bool // the file imports (or is) provider or modelclient
	found       []finding
}

func (c *classCheck) check(n ast.Node, operands ...ast.Expr) {
	for _, o := range operands {
		if w := c.what(o); w != "" {
			c.found = append(c.found, finding{n.Pos(), "compares " + w + ": ask the retry policy table (provider.Behaviour) instead"})
			return
		}
	}
}

// named reports whether e names one of names from package pkg
// (qualified, or bare inside pkg).
func (c *classCheck) named(e ast.Expr, pkg string, names []string) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return c.f.Name.Name == pkg && slices.Contains(names, e.Name)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == pkg && slices.Contains(names, e.Sel.Name)
	}
	return false
}

// what says what e is that may not be compared, or "".
func (c *classCheck) what(e ast.Expr) string {
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		e = call.Fun // f.Class()
	}
	switch {
	case c.named(e, "provider", classConsts):
		return "a retry class"
	case c.named(e, "modelclient", classKinds):
		if _, ok := kindWording[c.rel]; ok {
			return ""
		}
		return "a retryable kind"
	case !c.seesClasses:
		return ""
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, _ := strconv.Unquote(e.Value); e.Kind == token.STRING && slices.Contains(classNames, s) {
			return "a retry class's name"
		}
	case *ast.SelectorExpr:
		if e.Sel.Name == "Class" {
			return "a retry class"
		}
	}
	return ""
}
