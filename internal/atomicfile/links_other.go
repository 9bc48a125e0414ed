//go:build !unix

package atomicfile

import "io/fs"

// linkCount cannot tell hard links on this platform: it returns 1.
func linkCount(fs.FileInfo) uint64 { return 1 }
