package patch

import "path/filepath"

// Rooted returns the root to apply p under, and p with its paths relative
// to that root: cwd and p itself when every path is relative or inside
// cwd; otherwise "/" and a copy of p whose paths are all absolute (the
// relative ones joined to cwd), so a patch may name files outside the
// workspace. Whether it may write them is the Writable policy's decision,
// as for any other path.
func Rooted(p *Patch, cwd string) (string, *Patch) {
	outside := false
	for _, name := range p.Paths() {
		n := filepath.Clean(filepath.FromSlash(name))
		if filepath.IsAbs(n) {
			if _, ok := within(cwd, n); !ok {
				outside = true
			}
		}
	}
	if !outside {
		return cwd, p
	}
	abs := func(name string) string {
		if name == "" {
			return ""
		}
		n := filepath.FromSlash(name)
		if !filepath.IsAbs(n) {
			n = filepath.Join(cwd, n)
		}
		return filepath.ToSlash(filepath.Clean(n))
	}
	q := &Patch{Ops: make([]FileOp, len(p.Ops))}
	for i, op := range p.Ops {
		op.Path, op.MoveTo = abs(op.Path), abs(op.MoveTo)
		q.Ops[i] = op
	}
	return "/", q
}

// Under rewrites the paths of r, relative to root, as paths under root
// (absolute when root is): for a patch applied under the "/" of [Rooted].
func (r *Result) Under(root string) {
	for i, c := range r.Changes {
		r.Changes[i].Path = filepath.ToSlash(filepath.Join(root, c.Path))
		if c.MovedFrom != "" {
			r.Changes[i].MovedFrom = filepath.ToSlash(filepath.Join(root, c.MovedFrom))
		}
	}
}
