//go:build unix

package sink

import (
	"io/fs"
	"syscall"

	"github.com/transcriptsite/transcriptsite/cache"
)

// nameCount is how many names the file has; 0 when it is not known.
func nameCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// stampOf is the stamp of a file that holds what sum sums up.
func stampOf(fi fs.FileInfo, sum cache.Sum) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Mtime: fi.ModTime().UnixNano(), Sum: sum}, true
}
