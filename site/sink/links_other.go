//go:build !unix

package sink

import (
	"io/fs"

	"github.com/transcriptsite/transcriptsite/cache"
)

// nameCount is how many names the file has; 0 when it is not known, as here:
// the previous site's files are then copied, not kept.
func nameCount(fs.FileInfo) uint64 { return 0 }

// stampOf is never known here: every file kept is read.
func stampOf(fs.FileInfo, cache.Sum) (stamp, bool) { return stamp{}, false }
