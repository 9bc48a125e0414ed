package patch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentcli/agent/tools/patch"
)

// fakeEditor holds buffers: a file's text as the editor has it, unsaved.
type fakeEditor struct {
	buffers map[string]string
	reads   []string
	writes  map[string]string
}

func (e *fakeEditor) ReadTextFile(ctx context.Context, path string) (string, error) {
	e.reads = append(e.reads, path)
	if b, ok := e.buffers[path]; ok {
		return b, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (e *fakeEditor) WriteTextFile(ctx context.Context, path, text string) error {
	if e.writes == nil {
		e.writes = map[string]string{}
	}
	e.writes[path] = text
	return nil
}

// TestApplyThroughEditor: with an Editor, a patch applies to the text the
// editor has (an unsaved buffer, not the disk) and its result goes to the
// editor, not to the disk; a new file too; the Writable check still
// refuses a path before the editor is asked anything.
func TestApplyThroughEditor(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a.txt")
	if err := os.WriteFile(file, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := &fakeEditor{buffers: map[string]string{file: "unsaved line\n"}}
	p, err := patch.Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-unsaved line\n+patched line\n*** Add File: new.txt\n+new\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := patch.Apply(context.Background(), root, p, patch.Options{Editor: ed}); err != nil {
		t.Fatalf("a patch of the unsaved buffer: %v", err)
	}
	if got := ed.writes[file]; got != "patched line\n" {
		t.Errorf("the editor got %q for a.txt; want the patched buffer", got)
	}
	if got := ed.writes[filepath.Join(root, "new.txt")]; got != "new\n" {
		t.Errorf("the editor got %q for new.txt", got)
	}
	if b, _ := os.ReadFile(file); string(b) != "on disk\n" {
		t.Errorf("the disk's a.txt = %q; the editor saves it, not the patch", b)
	}
	// The disk's text does not match the buffer: without the editor the
	// same patch fails.
	if _, err := patch.Apply(context.Background(), root, p, patch.Options{}); err == nil {
		t.Error("the patch applied to the disk's text too")
	}
	ed2 := &fakeEditor{}
	_, err = patch.Apply(context.Background(), root, p, patch.Options{Editor: ed2, Writable: func(string) bool { return false }})
	if !errors.Is(err, patch.ErrNotWritable) || len(ed2.reads) != 0 || len(ed2.writes) != 0 {
		t.Errorf("a path the policy refuses: err %v, editor reads %q, writes %v; want ErrNotWritable before the editor is asked", err, ed2.reads, ed2.writes)
	}
}
