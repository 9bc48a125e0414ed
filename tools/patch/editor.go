package patch

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Editor is an editor that holds files open (an ACP client offering
// fs/read_text_file and fs/write_text_file): a file's text as the editor
// has it, unsaved changes included, and new text given to the editor,
// which shows it and saves it. Paths are absolute.
type Editor interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, text string) error
}

// editorFS reads and writes the files of a patch through an editor. What
// an editor cannot do stays on the disk, under the os.Root: whether and
// what a path is (Lstat, which also decides what exists), new directories
// and removals. Every path the planner asks about has passed its checks
// (inside the root, symbolic links resolved, the caller's Writable) before
// the editor sees it.
type editorFS struct {
	fileSystem
	ctx  context.Context
	root string
	ed   Editor
}

func (f editorFS) ReadFile(name string) ([]byte, error) {
	text, err := f.ed.ReadTextFile(f.ctx, filepath.Join(f.root, name))
	if err != nil {
		return nil, fmt.Errorf("the editor did not give its text: %w", err)
	}
	return []byte(text), nil
}

// WriteFile gives the editor the new text; the mode stays the editor's
// (an existing file keeps its own).
func (f editorFS) WriteFile(name string, data []byte, _ fs.FileMode) error {
	if err := f.ed.WriteTextFile(f.ctx, filepath.Join(f.root, name), string(data)); err != nil {
		return fmt.Errorf("the editor did not take the new text: %w", err)
	}
	return nil
}
