package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadOwn reads the file at path, one of agent's own (config.toml, a
// profile, auth.json), refusing one with other hard links: a link planted
// elsewhere, in a workspace a sandboxed command may write, would let that
// command change it (Landlock and the read-only mounts govern paths, not
// inodes), and [Write] would split the links anyway. The error names the
// file and how to fix it.
func ReadOwn(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := CheckLinks(path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// CheckLinks returns the error of [ReadOwn] when the file at path, of
// which fi is the information, has other hard links.
func CheckLinks(path string, fi fs.FileInfo) error {
	if n := linkCount(fi); fi.Mode().IsRegular() && n > 1 {
		return fmt.Errorf("%s has %d hard links: a link elsewhere could change it, so agent does not use it "+
			"(remove the other links, or replace it with a copy of its own)", path, n)
	}
	return nil
}
