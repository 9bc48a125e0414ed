package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxAppNames is how many exported names internal/app may have (issue
// 37): the process scope (New, App and its accessors) and the session
// scope (Spec, Thread and its operations). What a command uses without an
// App belongs in internal/setup; what a session does, on Thread.
const maxAppNames = 40

// TestAppSurface: internal/app exports at most maxAppNames names, counted
// as `go doc -all` lists them: top-level functions, types, variables and
// constants, and the methods of exported types.
func TestAppSurface(t *testing.T) {
	names := exportedNames(t, "../../internal/app")
	if len(names) > maxAppNames {
		t.Errorf("internal/app exports %d names; at most %d (issue 37). A helper commands use without an App "+
			"goes to internal/setup, a session's operation onto Thread, a front end's own logic into the front end:\n%s",
			len(names), maxAppNames, strings.Join(names, "\n"))
	}
}

// exportedNames lists the exported names of the package in dir, without
// its tests.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, declNames(file)...)
	}
	sort.Strings(names)
	return names
}

// declNames are the exported names file declares.
func declNames(file *ast.File) []string {
	var names []string
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				names = append(names, d.Name.Name)
				continue
			}
			if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
				names = append(names, recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// receiverType is the name of a method's receiver type.
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
