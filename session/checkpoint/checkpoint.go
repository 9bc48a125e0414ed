// Package checkpoint keeps what undoing a turn needs: snapshots of a
// workspace in a shadow git repository of agent's own, under the agent
// home (never the user's .git, which it neither reads nor writes; the
// workspace need not be a repository at all), and the restore of the files
// a turn changed from them.
//
// A [Store] holds one shadow repository per workspace,
// $AGENT_HOME/checkpoints/<hash of the path>/, with its own index (git's
// stat cache: a snapshot hashes only what changed). A snapshot is a commit
// whose tree holds the workspace ("files") and the exact permissions git
// does not keep ("modes"): binary files, symlinks, executable bits and
// every other mode come back as they were. What a snapshot leaves out:
// what the workspace's .gitignore files ignore (and, for a workspace
// inside a repository, those of the directories above it up to the
// repository's top), files larger than
// [Store].MaxFileSize, the store itself and [Store].Exclude, and the
// contents of nested repositories.
//
// [Store.Restore] puts back the files that changed between two snapshots
// (a turn's before and after), but only when each is still as the turn
// left it: a file changed since (by the user, another program or a later
// turn) is never overwritten; the whole restore is refused naming it.
//
// Retention: a workspace keeps its latest [Store].Keep snapshots
// (default 200: a hundred turns) that are younger than [Store].MaxAge
// (default 14 days); older ones are pruned as new ones are taken.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentcli/agent/internal/filelock"
)

// Defaults of a [Store].
const (
	DefaultKeep        = 200
	DefaultMaxAge      = 14 * 24 * time.Hour
	DefaultMaxFileSize = 10 << 20
)

// Store keeps the snapshots of workspaces under Dir.
type Store struct {
	// Dir holds a shadow repository per workspace
	// ($AGENT_HOME/checkpoints).
	Dir string
	// Exclude are paths never kept (the agent home, whatever the
	// workspace).
	Exclude []string
	// Keep is how many snapshots a workspace keeps; 0: [DefaultKeep].
	Keep int
	// MaxAge is how long a snapshot is kept; 0: [DefaultMaxAge].
	MaxAge time.Duration
	// MaxFileSize is the largest file kept; 0: [DefaultMaxFileSize].
	MaxFileSize int64
	// Git is the git program; "": "git" on PATH.
	Git string
	// Now is the clock of retention; nil: time.Now.
	Now func() time.Time
}

// ConflictError refuses a restore: the files named were changed since
// the turn being undone, and restoring would overwrite those changes.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("not undone: %s changed since (by you, another program or a later turn); "+
		"undo would overwrite it, so nothing was restored", strings.Join(e.Paths, ", "))
}

// ErrGone says a snapshot is no longer kept (pruned by retention).
var ErrGone = errors.New("checkpoint no longer kept")

// Result is what a restore did, by path relative to the workspace.
type Result struct {
	Restored []string // written back as they were
	Removed  []string // created by the turn, removed
}

// Change is one path that differs between two snapshots.
type Change struct {
	// Kind is "A" (added), "D" (deleted), "M" (contents or type), "P"
	// (permissions only).
	Kind string
	Path string
}

// workspace is one workspace's shadow repository.
type workspace struct {
	s    *Store
	root string // the workspace, absolute
	dir  string // its directory in the store
}

func (s *Store) workspace(root string) (*workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	return &workspace{s: s, root: abs, dir: filepath.Join(s.Dir, hex.EncodeToString(sum[:8]))}, nil
}

// Snapshot records the workspace at root as it is now and returns the
// snapshot's id.
func (s *Store) Snapshot(ctx context.Context, root string) (string, error) {
	w, err := s.workspace(root)
	if err != nil {
		return "", err
	}
	unlock, err := w.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	id, err := w.snapshot(ctx)
	if err != nil {
		return "", w.failed("take a checkpoint", err)
	}
	w.prune(ctx)
	return id, nil
}

// Changes lists what differs from snapshot before to snapshot after.
func (s *Store) Changes(ctx context.Context, root, before, after string) ([]Change, error) {
	w, err := s.workspace(root)
	if err != nil {
		return nil, err
	}
	b, err := w.read(ctx, before)
	if err != nil {
		return nil, err
	}
	a, err := w.read(ctx, after)
	if err != nil {
		return nil, err
	}
	return diff(b, a), nil
}

// Touched lists the paths that differ in content, type or presence
// between snapshot before and snapshot after (git's diff of the two
// trees: cheaper than [Store.Changes], permissions aside).
func (s *Store) Touched(ctx context.Context, root, before, after string) ([]string, error) {
	w, err := s.workspace(root)
	if err != nil {
		return nil, err
	}
	if !validID(before) || !validID(after) {
		return nil, fmt.Errorf("checkpoint: %q or %q is not a checkpoint id", before, after)
	}
	out, err := w.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-only", before+":files", after+":files")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// Restore puts the files that changed from snapshot before to snapshot
// after back as they were in before, if every one of them is still as it
// was in after; otherwise it restores nothing and returns a
// [*ConflictError] naming the ones changed since.
func (s *Store) Restore(ctx context.Context, root, before, after string) (Result, error) {
	w, err := s.workspace(root)
	if err != nil {
		return Result{}, err
	}
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	b, err := w.read(ctx, before)
	if err != nil {
		return Result{}, err
	}
	a, err := w.read(ctx, after)
	if err != nil {
		return Result{}, err
	}
	changes := diff(b, a)
	if len(changes) == 0 {
		return Result{}, nil
	}
	nowID, err := w.snapshot(ctx)
	if err != nil {
		return Result{}, w.failed("check the files before restoring them", err)
	}
	now, err := w.read(ctx, nowID)
	if err != nil {
		return Result{}, err
	}
	var conflicts []string
	for _, c := range changes {
		if a.files[c.Path] != now.files[c.Path] {
			conflicts = append(conflicts, c.Path)
		}
	}
	if len(conflicts) > 0 {
		return Result{}, &ConflictError{Paths: conflicts}
	}
	return w.restore(ctx, b, changes)
}

// entry is a path in a snapshot: git's mode and object, and the exact
// permissions of a regular file.
type entry struct {
	mode string // 100644, 100755, 120000, 160000
	hash string
	perm fs.FileMode
}

// tree is a snapshot read back.
type tree struct {
	id    string
	files map[string]entry
}

func diff(b, a *tree) []Change {
	var out []Change
	for p, e := range a.files {
		old, ok := b.files[p]
		switch {
		case !ok:
			out = append(out, Change{"A", p})
		case old.mode != e.mode || old.hash != e.hash:
			out = append(out, Change{"M", p})
		case old.perm != e.perm:
			out = append(out, Change{"P", p})
		}
	}
	for p := range b.files {
		if _, ok := a.files[p]; !ok {
			out = append(out, Change{"D", p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// lock holds the workspace's repository for one operation: two sessions
// in one workspace take turns.
func (w *workspace) lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return nil, w.failed("create the checkpoint store", err)
	}
	h, err := filelock.LockPath(ctx, filepath.Join(w.dir, "lock"), filelock.Wait{})
	if err != nil {
		return nil, err
	}
	return func() { _ = h.Unlock() }, nil
}

// failed words a failure of the store: what could not be done, where,
// and that the user's files were not touched.
func (w *workspace) failed(what string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "No space left on device") || errors.Is(err, errNoSpace) {
		return fmt.Errorf("checkpoint: could not %s: no space left on device in %s (your files were not touched)", what, w.s.Dir)
	}
	return fmt.Errorf("checkpoint: could not %s in %s: %w (your files were not touched)", what, w.s.Dir, err)
}

// git runs git on the shadow repository with the workspace as its work
// tree, isolated from the user's configuration and repository.
func (w *workspace) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	prog := w.s.Git
	if prog == "" {
		prog = "git"
	}
	base := []string{
		"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.fileMode=true",
		"-c", "core.symlinks=true", "-c", "core.quotePath=false", "-c", "gc.auto=0",
		"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false", "-c", "safe.directory=*",
		"-c", "core.excludesFile=" + filepath.Join(w.dir, "exclude"), "-c", "maintenance.auto=false",
	}
	cmd := exec.CommandContext(ctx, prog, append(base, args...)...)
	cmd.Dir = w.root
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") { // a hook's GIT_DIR must not lead to the user's repository
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_DIR="+filepath.Join(w.dir, "git"), "GIT_WORK_TREE="+w.root,
		"GIT_INDEX_FILE="+filepath.Join(w.dir, "index"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@localhost",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@localhost", "LC_ALL=C")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("checkpoints need git, which was not found (%s)", prog)
		}
		return out, err
	}
	return out, nil
}

var errNoSpace = errors.New("no space left on device")

// init makes the shadow repository on first use.
func (w *workspace) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(w.dir, "git", "HEAD")); err == nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(w.dir, "root"), []byte(w.root+"\n"), 0o600); err != nil {
		return err
	}
	if err := w.writeExclude(nil); err != nil {
		return err
	}
	_, err := w.git(ctx, nil, "init", "-q")
	return err
}

// writeExclude writes the patterns a snapshot leaves out: what the
// enclosing repository ignores ([inheritedIgnores]), then the store and
// the excluded paths when they are inside the workspace, and big files
// (later lines win: no inherited "!" takes those back).
func (w *workspace) writeExclude(big []string) error {
	var b strings.Builder
	for _, p := range inheritedIgnores(w.root) {
		b.WriteString(p + "\n")
	}
	for _, p := range append([]string{w.s.Dir}, w.s.Exclude...) {
		if rel, err := filepath.Rel(w.root, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			b.WriteString(pattern(rel) + "/\n")
		}
	}
	for _, p := range big {
		b.WriteString(pattern(p) + "\n")
	}
	return os.WriteFile(filepath.Join(w.dir, "exclude"), []byte(b.String()), 0o600)
}

// pattern is a gitignore pattern matching exactly the relative path p.
func pattern(p string) string {
	var b strings.Builder
	b.WriteByte('/')
	for _, r := range filepath.ToSlash(p) {
		if strings.ContainsRune(`\*?[]!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// snapshot records the workspace (the caller holds the lock).
func (w *workspace) snapshot(ctx context.Context) (string, error) {
	if err := w.init(ctx); err != nil {
		return "", err
	}
	big, err := w.bigFiles(ctx)
	if err != nil {
		return "", err
	}
	if err := w.writeExclude(big); err != nil {
		return "", err
	}
	if len(big) > 0 {
		// A file that grew too big since it was kept is kept no more.
		if _, err := w.git(ctx, []byte(strings.Join(big, "\x00")+"\x00"), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return "", err
		}
	}
	if out, err := w.git(ctx, nil, "add", "-A", "--ignore-errors", "--", "."); err != nil {
		// An unreadable file is left out; anything else fails the snapshot.
		if strings.Contains(err.Error(), "fatal:") || strings.Contains(err.Error(), "No space left") {
			return "", err
		}
		_ = out
	}
	treeOut, err := w.git(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	files := strings.TrimSpace(string(treeOut))
	modes, err := w.modes(ctx)
	if err != nil {
		return "", err
	}
	blob, err := w.git(ctx, modes, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	top := fmt.Sprintf("040000 tree %s\tfiles\n100644 blob %s\tmodes\n", files, strings.TrimSpace(string(blob)))
	wrapped, err := w.git(ctx, []byte(top), "mktree")
	if err != nil {
		return "", err
	}
	commit, err := w.git(ctx, nil, "commit-tree", strings.TrimSpace(string(wrapped)), "-m", "agent checkpoint of "+w.root)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(commit))
	if _, err := w.git(ctx, nil, "update-ref", "refs/checkpoints/"+id, id); err != nil {
		return "", err
	}
	return id, nil
}

// bigFiles lists the new and changed files larger than MaxFileSize.
func (w *workspace) bigFiles(ctx context.Context) ([]string, error) {
	max := w.s.MaxFileSize
	if max == 0 {
		max = DefaultMaxFileSize
	}
	// The previous exclude file is not used here: a big file that shrank
	// is kept again.
	if err := w.writeExclude(nil); err != nil {
		return nil, err
	}
	out, err := w.git(ctx, nil, "ls-files", "-z", "-o", "-m", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var big []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		if st, err := os.Lstat(filepath.Join(w.root, p)); err == nil && st.Mode().IsRegular() && st.Size() > max {
			big = append(big, p)
		}
	}
	return big, nil
}

// modes lists the permissions of the indexed regular files that git's
// two modes do not say: "0600 path" lines.
func (w *workspace) modes(ctx context.Context) ([]byte, error) {
	out, err := w.git(ctx, nil, "ls-files", "-z", "-s")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		mode, _, _ := strings.Cut(meta, " ")
		if mode != "100644" && mode != "100755" {
			continue
		}
		st, err := os.Lstat(filepath.Join(w.root, p))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if perm := st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); perm != gitPerm(mode) {
			fmt.Fprintf(&b, "%04o %s\x00", unixPerm(perm), p)
		}
	}
	return b.Bytes(), nil
}

func gitPerm(mode string) fs.FileMode {
	if mode == "100755" {
		return 0o755
	}
	return 0o644
}

// unixPerm and goPerm convert between Go's mode bits and the octal
// numbers a modes file holds.
func unixPerm(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		p |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		p |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		p |= 0o1000
	}
	return p
}

func goPerm(p uint32) fs.FileMode {
	m := fs.FileMode(p & 0o777)
	if p&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if p&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if p&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// read reads snapshot id back.
func (w *workspace) read(ctx context.Context, id string) (*tree, error) {
	if !validID(id) {
		return nil, fmt.Errorf("checkpoint: %q is not a checkpoint id", id)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "git", "HEAD")); err != nil {
		return nil, fmt.Errorf("checkpoint %.12s of %s: %w", id, w.root, ErrGone)
	}
	if _, err := w.git(ctx, nil, "cat-file", "-e", id+"^{commit}"); err != nil {
		return nil, fmt.Errorf("checkpoint %.12s of %s: %w (kept: the latest %d, for %s)", id, w.root, ErrGone, w.keep(), w.maxAge())
	}
	out, err := w.git(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", id+":files")
	if err != nil {
		return nil, err
	}
	t := &tree{id: id, files: map[string]entry{}}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type hash
		if len(f) != 3 {
			continue
		}
		e := entry{mode: f[0], hash: f[2]}
		if e.mode == "100644" || e.mode == "100755" {
			e.perm = gitPerm(e.mode)
		}
		t.files[p] = e
	}
	modes, err := w.git(ctx, nil, "cat-file", "blob", id+":modes")
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(string(modes), "\x00") {
		num, p, ok := strings.Cut(rec, " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(num, 8, 32)
		if e, found := t.files[p]; err == nil && found {
			e.perm = goPerm(uint32(n))
			t.files[p] = e
		}
	}
	return t, nil
}

func validID(id string) bool {
	if len(id) < 40 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// restore writes back the changed paths as they were in b: removals
// first (deepest first, so a directory the turn made is gone before a file
// takes its name back), then the files.
func (w *workspace) restore(ctx context.Context, b *tree, changes []Change) (Result, error) {
	var res Result
	var adds []Change
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.Kind != "A" {
			adds = append(adds, c)
			continue
		}
		if err := os.Remove(filepath.Join(w.root, c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("undo: remove %s: %w", c.Path, err)
		}
		res.Removed = append(res.Removed, c.Path)
		w.removeEmptyParents(b, c.Path)
	}
	sort.Slice(adds, func(i, j int) bool { return adds[i].Path < adds[j].Path })
	for _, c := range adds {
		e := b.files[c.Path]
		if err := w.put(ctx, c.Path, e); err != nil {
			return res, fmt.Errorf("undo: restore %s: %w", c.Path, err)
		}
		res.Restored = append(res.Restored, c.Path)
	}
	sort.Strings(res.Removed)
	return res, nil
}

// removeEmptyParents removes the directories above p that are empty now
// and held nothing in b.
func (w *workspace) removeEmptyParents(b *tree, p string) {
	for dir := filepath.Dir(p); dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		prefix := filepath.ToSlash(dir) + "/"
		for q := range b.files {
			if strings.HasPrefix(q, prefix) {
				return
			}
		}
		if os.Remove(filepath.Join(w.root, dir)) != nil {
			return
		}
	}
}

// put writes one path as e says: a symlink, or a file with its exact
// permissions, replaced whole (written beside it, then renamed).
func (w *workspace) put(ctx context.Context, p string, e entry) error {
	if e.mode == "160000" {
		return nil // a nested repository's commit: not ours to check out
	}
	dst := filepath.Join(w.root, p)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	data, err := w.git(ctx, nil, "cat-file", "blob", e.hash)
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".agent-undo")
	_ = os.Remove(tmp)
	if e.mode == "120000" {
		if err := os.Symlink(string(data), tmp); err != nil {
			return err
		}
	} else {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Chmod(e.perm)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	if st, err := os.Lstat(dst); err == nil && st.IsDir() {
		if err := os.Remove(dst); err != nil { // a directory the turn made, emptied above
			_ = os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

func (s *Store) keep() int {
	if s.Keep > 0 {
		return s.Keep
	}
	return DefaultKeep
}

func (w *workspace) keep() int { return w.s.keep() }

func (w *workspace) maxAge() time.Duration {
	if w.s.MaxAge > 0 {
		return w.s.MaxAge
	}
	return DefaultMaxAge
}

// prune drops the snapshots retention no longer keeps, and their objects.
// It runs when there are pruneSlack more than kept, so its walk of the
// repository is paid once in that many snapshots.
func (w *workspace) prune(ctx context.Context) {
	out, err := w.git(ctx, nil, "for-each-ref", "--sort=-committerdate", "--format=%(committerdate:unix) %(refname)", "refs/checkpoints/")
	if err != nil {
		return
	}
	now := time.Now
	if w.s.Now != nil {
		now = w.s.Now
	}
	oldest := now().Add(-w.maxAge()).Unix()
	var drop []string
	expired := false
	for i, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ts, ref, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		t, _ := strconv.ParseInt(ts, 10, 64)
		if t < oldest {
			expired = true
		}
		if i >= w.keep() || t < oldest {
			drop = append(drop, ref)
		}
	}
	if len(drop) == 0 || len(drop) < pruneSlack && !expired {
		return
	}
	var in strings.Builder
	for _, ref := range drop {
		in.WriteString("delete " + ref + "\n")
	}
	if _, err := w.git(ctx, []byte(in.String()), "update-ref", "--stdin"); err != nil {
		return
	}
	_, _ = w.git(ctx, nil, "prune", "--expire=now")
}

// pruneSlack is how many snapshots past retention wait for the next
// prune.
const pruneSlack = 10
