package heap

import "golang.org/x/sys/unix"

// populate has the kernel fill b's pages, writable, in one call (Linux
// 5.14 and later).
func populate(b []byte) error { return unix.Madvise(b, unix.MADV_POPULATE_WRITE) }
