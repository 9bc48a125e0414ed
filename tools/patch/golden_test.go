package patch_test

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools/patch"
)

var update = flag.Bool("update", false, "rewrite testdata golden files and after/ trees")

// TestGolden applies testdata/NAME.patch to a copy of testdata/NAME/before
// and compares the tool output with testdata/NAME.golden and the tree with
// testdata/NAME/after. A patch that fails must leave the tree untouched.
func TestGolden(t *testing.T) {
	patches, err := filepath.Glob(filepath.Join("testdata", "*.patch"))
	if err != nil || len(patches) == 0 {
		t.Fatalf("no golden patches: %v", err)
	}
	for _, pf := range patches {
		name := strings.TrimSuffix(filepath.Base(pf), ".patch")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", name)
			root := t.TempDir()
			before := readTree(t, filepath.Join(dir, "before"))
			writeTree(t, root, before)

			out, applyErr := run(t, root, readFile(t, pf))
			got := readTree(t, root)
			if applyErr != nil {
				if d := cmp.Diff(before, got); d != "" {
					t.Errorf("failed patch changed the tree (-before +after):\n%s", d)
				}
			}
			checkGolden(t, filepath.Join("testdata", name+".golden"), out)

			afterDir := filepath.Join(dir, "after")
			if *update {
				if err := os.RemoveAll(afterDir); err != nil {
					t.Fatal(err)
				}
				writeTree(t, afterDir, got)
			}
			if d := cmp.Diff(readTree(t, afterDir), got); d != "" {
				t.Errorf("tree after apply (-want +got):\n%s", d)
			}
		})
	}
}

// run parses and applies text under root and renders what the model would
// be told.
func run(t *testing.T, root, text string) (string, error) {
	t.Helper()
	p, err := patch.Parse(text)
	if err != nil {
		return "parse error: " + err.Error() + "\n", err
	}
	res, err := patch.Apply(t.Context(), root, p, patch.Options{})
	if err != nil {
		var ae *patch.ApplyError
		if !errors.As(err, &ae) {
			t.Errorf("Apply error %T is not an *ApplyError: %v", err, err)
		}
		return "error: " + err.Error() + "\n", err
	}
	return res.String() + "\n" + res.Diff(), nil
}

// TestParseErrorsGolden checks the message of every testdata/parse patch.
func TestParseErrorsGolden(t *testing.T) {
	patches, err := filepath.Glob(filepath.Join("testdata", "parse", "*.patch"))
	if err != nil || len(patches) == 0 {
		t.Fatalf("no parse error patches: %v", err)
	}
	for _, pf := range patches {
		t.Run(strings.TrimSuffix(filepath.Base(pf), ".patch"), func(t *testing.T) {
			t.Parallel()
			_, err := patch.Parse(readFile(t, pf))
			var pe *patch.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error = %v; want a *ParseError", err)
			}
			checkGolden(t, strings.TrimSuffix(pf, ".patch")+".golden", err.Error()+"\n")
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readFile(t, path)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// readTree returns the regular files (and symbolic links, as "symlink to
// target") under dir by slash path; a missing dir is an empty tree.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			tree[filepath.ToSlash(rel)] = "symlink to " + target
			return err
		case !d.Type().IsRegular():
			t.Errorf("%s: unexpected file type %v", path, d.Type())
			return nil
		}
		b, err := os.ReadFile(path)
		tree[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func writeTree(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for name, data := range tree {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
