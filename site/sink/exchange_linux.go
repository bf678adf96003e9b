package sink

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders src and dest in one step (renameat2 with
// RENAME_EXCHANGE), or moves src to dest when there is no dest. It reports
// false, and does nothing, where the file system cannot exchange.
func exchange(src, dest string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dest, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT):
		return false, nil // no dest: the plain rename does
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return false, nil
	}
	return false, err
}
