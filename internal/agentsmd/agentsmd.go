// Package agentsmd finds the instructions users leave for agents: AGENTS.md
// files from the project root down to the working directory, plus the
// user's global one in $AGENT_HOME, as the reference client does.
package agentsmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxBytes caps the project instructions (project_doc_max_bytes).
const DefaultMaxBytes = 32 * 1024

// Separator joins the global instructions and the project's.
const Separator = "\n\n--- project-doc ---\n\n"

// Options configure [Discover]. The zero value means the defaults.
type Options struct {
	// Home is $AGENT_HOME, where the global AGENTS.md lives ("" skips it).
	Home string
	// MaxBytes caps the project docs; 0 means [DefaultMaxBytes].
	MaxBytes int
	// RootMarkers find the project root walking up from the working
	// directory; nil means [".git"], an empty non-nil slice disables the
	// walk (only the working directory is read).
	RootMarkers []string
	// Fallbacks are file names tried after AGENTS.md in each directory.
	Fallbacks []string
}

// Doc is what was found.
type Doc struct {
	// Text is the combined instructions ("" when there are none).
	Text string
	// Files lists the files read, global first, then root to cwd.
	Files []string
	// Truncated says the project docs hit MaxBytes.
	Truncated bool
}

// Discover reads the instructions for cwd.
func Discover(cwd string, opts Options) (Doc, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.RootMarkers == nil {
		opts.RootMarkers = []string{".git"}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return Doc{}, err
	}
	var doc Doc
	var global string
	if opts.Home != "" {
		path, text, err := firstFile(opts.Home, []string{"AGENTS.override.md", "AGENTS.md"})
		if err != nil {
			return Doc{}, err
		}
		if path != "" {
			global = strings.TrimSpace(text)
			doc.Files = append(doc.Files, path)
		}
	}
	var project strings.Builder
	names := append([]string{"AGENTS.override.md", "AGENTS.md"}, opts.Fallbacks...)
	for _, dir := range dirsFromRoot(cwd, opts.RootMarkers) {
		path, text, err := firstFile(dir, names)
		if err != nil {
			return Doc{}, err
		}
		if path == "" || strings.TrimSpace(text) == "" {
			continue
		}
		if project.Len() > 0 {
			project.WriteString("\n\n")
		}
		project.WriteString(strings.TrimSpace(text))
		doc.Files = append(doc.Files, path)
	}
	p := project.String()
	if len(p) > opts.MaxBytes {
		p, doc.Truncated = p[:opts.MaxBytes], true
	}
	switch {
	case global != "" && p != "":
		doc.Text = global + Separator + p
	case global != "":
		doc.Text = global
	default:
		doc.Text = p
	}
	return doc, nil
}

// dirsFromRoot lists the directories from the project root down to cwd.
func dirsFromRoot(cwd string, markers []string) []string {
	if len(markers) == 0 {
		return []string{cwd}
	}
	var chain []string
	for dir := cwd; ; dir = filepath.Dir(dir) {
		chain = append(chain, dir)
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
					chain[i], chain[j] = chain[j], chain[i]
				}
				return chain
			}
		}
		if filepath.Dir(dir) == dir {
			return []string{cwd} // no root marker anywhere: cwd alone
		}
	}
}

// firstFile reads the first of names that exists in dir.
func firstFile(dir string, names []string) (path, text string, err error) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		b, err := os.ReadFile(p)
		switch {
		case err == nil:
			return p, string(b), nil
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
			continue
		default:
			var pe *fs.PathError
			if errors.As(err, &pe) && errors.Is(pe.Err, fs.ErrInvalid) {
				continue
			}
			return "", "", err
		}
	}
	return "", "", nil
}

// Message renders the instructions as the user message the model reads.
func (d Doc) Message(cwd string) string {
	return "# AGENTS.md instructions for " + cwd + "\n\n<INSTRUCTIONS>\n" + d.Text + "\n</INSTRUCTIONS>"
}
