package archtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot returns the top of the git checkout the test runs in, or skips
// the test when there is none (a module copy, a tarball, no git).
func repoRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	return strings.TrimSpace(string(out))
}

// programs returns the names of the module's programs: the directories
// of cmd/, each a binary `make build` writes (agent and its companions).
func programs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("cmd/ holds no programs")
	}
	return names
}

// TestNoBuildOutputTracked: build outputs are never committed. No tracked
// file is a program (ELF, Mach-O or PE, whatever its mode or name), lies
// in bin/, or is named as one of cmd/'s programs where go build writes it
// (the root, its own directory); and .gitignore keeps each of them and
// bin/ out of `git add .`.
func TestNoBuildOutputTracked(t *testing.T) {
	root := repoRoot(t)
	progs := programs(t, root)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		if strings.HasPrefix(name, "bin/") {
			t.Errorf("%s is tracked: bin/ is build output (git rm --cached)", name)
		}
		for _, p := range progs {
			if base := strings.TrimSuffix(name, ".exe"); base == p || base == "cmd/"+p+"/"+p {
				t.Errorf("%s is tracked: %s is a program make build writes (git rm --cached)", name, p)
			}
		}
		kind, err := executableKind(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if kind != "" {
			t.Errorf("%s is tracked and is an executable (%s): build outputs are never committed (git rm --cached)", name, kind)
		}
	}
	for _, p := range append(progs, "bin/agent") {
		if err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", p).Run(); err != nil {
			t.Errorf(".gitignore does not ignore %s (git check-ignore: %v)", p, err)
		}
	}
}

// executableKind reads the start of the file and names the executable
// format it begins with, or "" for anything else (or a file not on disk).
func executableKind(name string) (string, error) {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // tracked but deleted in the work tree
	} else if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", err // a symlink's target or a submodule is not this file
	}
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return kindOf(head[:n], f), nil
}

// kindOf names the format by its magic number; f is read for a PE
// header's signature, which lies where the DOS header points.
func kindOf(head []byte, f io.ReaderAt) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(head, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(head, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(head, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")) && len(head) >= 64:
		off := int64(binary.LittleEndian.Uint32(head[0x3c:]))
		sig := make([]byte, 4)
		if _, err := f.ReadAt(sig, off); err == nil && string(sig) == "PE\x00\x00" {
			return "PE"
		}
	}
	return ""
}

// TestExecutableKind: the formats go build writes are each recognised,
// and text is not.
func TestExecutableKind(t *testing.T) {
	pe := make([]byte, 0x90)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	notPE := bytes.Clone(pe)
	copy(notPE[0x80:], "text")
	for _, c := range []struct {
		content []byte
		want    string
	}{
		{[]byte("\x7fELF\x02\x01\x01\x00"), "ELF"},
		{[]byte{0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 1}, "Mach-O"},
		{[]byte{0xfe, 0xed, 0xfa, 0xce}, "Mach-O"},
		{pe, "PE"},
		{notPE, ""},
		{[]byte("MZ is a text file that starts with these two letters"), ""},
		{[]byte("#!/bin/sh\necho hi\n"), ""},
		{nil, ""},
	} {
		name := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(name, c.content, 0o755); err != nil {
			t.Fatal(err)
		}
		if got, err := executableKind(name); err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.content[:min(len(c.content), 8)], got, err, c.want)
		}
	}
}
