//go:build !unix

package patch

import "io/fs"

// hardLinked cannot tell hard links apart on this platform: a file is
// replaced, as one without links.
func hardLinked(fs.FileInfo) bool { return false }
