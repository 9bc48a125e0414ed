//go:build unix

package atomicfile

import (
	"io/fs"
	"syscall"
)

// linkCount returns the hard links of the file of fi, 1 when unknown.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
