package checkpoint

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// inheritedIgnores are the ignore rules of the git repository enclosing
// root, when root is a directory inside one but not its top: the
// .gitignore files of root's ancestors up to the repository's top, each
// pattern rewritten to apply from root, in the order git weighs them
// (the top's first: a later line wins). Git reads only the .gitignore
// files inside its work tree, and the shadow repository's work tree is
// root, so without these a workspace in a subdirectory would be
// snapshotted with everything its repository ignores (node_modules,
// build outputs). The user's .git itself is not read.
func inheritedIgnores(root string) []string {
	var dirs []string // root's ancestors, nearest first, up to the repository's top
	if exists(filepath.Join(root, ".git")) {
		return nil
	}
	for d := root; ; {
		parent := filepath.Dir(d)
		if parent == d {
			return nil // no repository encloses root
		}
		d = parent
		dirs = append(dirs, d)
		if exists(filepath.Join(d, ".git")) {
			break
		}
	}
	var out []string
	for i := len(dirs) - 1; i >= 0; i-- {
		b, err := os.ReadFile(filepath.Join(dirs[i], ".gitignore"))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(dirs[i], root)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := rebase(line, strings.Split(filepath.ToSlash(rel), "/")); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// rebase rewrites one .gitignore line of a directory D to apply from
// D/rel: a pattern without a slash applies at any depth and is kept as
// it is; an anchored one is kept only if its leading components match
// rel, with them taken off; "**" keeps what follows at any depth. ok is
// false for a blank line, a comment, and a pattern that names nothing
// inside D/rel (or D/rel itself or an ancestor of it: snapshotting a
// workspace its repository ignores keeps what it holds).
func rebase(line string, rel []string) (string, bool) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasSuffix(line, `\ `) {
		line = strings.TrimRight(strings.TrimSuffix(line, `\ `), " ") + `\ `
	} else {
		line = strings.TrimRight(line, " ")
	}
	if line == "" || line[0] == '#' {
		return "", false
	}
	neg := ""
	if line[0] == '!' {
		neg, line = "!", line[1:]
	}
	dirOnly := ""
	if strings.HasSuffix(line, "/") {
		dirOnly, line = "/", strings.TrimSuffix(line, "/")
	}
	if line == "" {
		return "", false
	}
	if !strings.Contains(line, "/") {
		return neg + line + dirOnly, true
	}
	parts := strings.Split(strings.TrimPrefix(line, "/"), "/")
	for i, r := range rel {
		if i >= len(parts) {
			return "", false
		}
		if parts[i] == "**" {
			rest := parts[i+1:]
			if len(rest) == 0 {
				return "", false
			}
			return neg + "**/" + strings.Join(rest, "/") + dirOnly, true
		}
		if ok, err := path.Match(parts[i], r); err != nil || !ok {
			return "", false
		}
	}
	rest := parts[len(rel):]
	if len(rest) == 0 {
		return "", false
	}
	return neg + "/" + strings.Join(rest, "/") + dirOnly, true
}
