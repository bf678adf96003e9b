//go:build unix

package site

import (
	"io/fs"
	"syscall"
)

// nameCount is how many names the file has; 0 when it is not known.
func nameCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
