//go:build !unix

package site

import "io/fs"

// nameCount is how many names the file has; 0 when it is not known, as here:
// the previous site's files are then copied, not kept.
func nameCount(fs.FileInfo) uint64 { return 0 }
