package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFiles returns the path, relative to the module root, of every .go
// file of the module, skipping testdata and node_modules.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			rel, err := filepath.Rel("../..", p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFuzzTargetsInMakefile: every fuzz target of the module is one
// `make fuzz` (and so CI) runs.
func TestFuzzTargetsInMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w*)\(\w+ \*testing\.F\)`)
	n := 0
	for _, f := range goFiles(t) {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			n++
			target := "./" + filepath.ToSlash(filepath.Dir(f)) + ":" + string(m[1])
			if !strings.Contains(string(mk), target) {
				t.Errorf("%s: %s is not in the Makefile's FUZZ_TARGETS (want %s)", f, m[1], target)
			}
		}
	}
	if n == 0 {
		t.Error("no fuzz targets found")
	}
}
