//go:build !linux

package sink

// exchange reports that there is no atomic exchange here: the swap is
// two renames.
func exchange(src, dest string) (bool, error) { return false, nil }
