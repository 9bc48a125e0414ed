//go:build unix

package patch

import (
	"io/fs"
	"syscall"
)

// hardLinked reports whether the file of info has other hard links.
func hardLinked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
