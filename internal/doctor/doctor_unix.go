//go:build unix

package doctor

import (
	"os"
	"syscall"
)

// fileOwner is the uid owning the file st describes.
func fileOwner(st os.FileInfo) (uid int, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}
