package patch

import (
	"errors"
	"fmt"
)

// Sentinel causes carried by [*ApplyError]; test them with [errors.Is].
// A missing file is [fs.ErrNotExist] and a file that already exists is
// [fs.ErrExist].
var (
	// ErrOutsideRoot is a path that leaves the root: "..", an absolute path
	// elsewhere, or a symbolic link that resolves outside the root.
	ErrOutsideRoot = errors.New("patch: path is outside the root")
	// ErrNotWritable is a path the caller's [Options.Writable] policy
	// refuses. A caller may ask the user and retry without the policy.
	ErrNotWritable = errors.New("patch: path is not writable under the sandbox policy")
	// ErrSymlink is a Delete or a move of a symbolic link: apply_patch
	// removes regular files only. (Updating through a link inside the root
	// is allowed and edits the link's target.)
	ErrSymlink = errors.New("patch: path is a symbolic link")
	// ErrReadOnly is an Update, an Add over an existing file or a move
	// onto one, where that file has no write permission bit.
	ErrReadOnly = errors.New("patch: file is read-only")
	// ErrNoMatch is a chunk whose lines were not found in the file.
	ErrNoMatch = errors.New("patch: expected lines not found")
	// ErrEmpty is a patch without file operations.
	ErrEmpty = errors.New("patch: no files were modified")
)

// ApplyError is a patch that cannot be applied to the tree. When Apply
// returns it, nothing was written. Error renders a message meant for the
// model: the file, the chunk, what was not found and where the file comes
// closest.
type ApplyError struct {
	// Action and Path name the failing file section, Path as written in the
	// patch.
	Action Action
	Path   string
	// Chunk is the 1-based index of the failing chunk of an [Update], or 0.
	Chunk int
	// Msg says what is wrong.
	Msg string
	// Err is the cause: [ErrNoMatch], [ErrOutsideRoot], [ErrNotWritable],
	// [ErrSymlink], [fs.ErrNotExist], [fs.ErrExist], a file-system error,
	// or nil (a directory where a file was expected, say).
	Err error
}

// Error renders "update a.go, chunk 2: could not find ...", followed by a
// line saying that no file was changed.
func (e *ApplyError) Error() string {
	s := fmt.Sprintf("%s %s", e.Action, e.Path)
	if e.Chunk > 0 {
		s += fmt.Sprintf(", chunk %d", e.Chunk)
	}
	return s + ": " + e.Msg + "\nno files were changed"
}

// Unwrap returns the cause.
func (e *ApplyError) Unwrap() error { return e.Err }

// WriteError is a failure while writing an already verified patch (a full
// disk, say). The files written before the failure were restored from
// memory; Rollback is non-nil when restoring some of them failed too, in
// which case the tree may be partly patched.
type WriteError struct {
	// Path is the file being written or removed, relative to the root.
	Path string
	// Err is the write failure.
	Err error
	// Rollback joins the failures to restore earlier files, if any.
	Rollback error
}

// Error says what failed and whether the tree was restored.
func (e *WriteError) Error() string {
	if e.Rollback != nil {
		return fmt.Sprintf("write %s: %v; restoring the files already written failed, the tree may be partly patched: %v",
			e.Path, e.Err, e.Rollback)
	}
	return fmt.Sprintf("write %s: %v; the files already written were restored, no files were changed", e.Path, e.Err)
}

// Unwrap returns the write failure.
func (e *WriteError) Unwrap() error { return e.Err }
