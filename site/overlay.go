package site

import (
	"io/fs"
	"slices"
	"strings"
)

// overlay is a file system where files of upper hide those of lower with the
// same path: a site's own templates and assets override the theme's, file by
// file, as in Hugo.
type overlay struct{ upper, lower fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	if f, err := o.upper.Open(name); err == nil {
		if st, err := f.Stat(); err == nil && !st.IsDir() {
			return f, nil
		}
		f.Close()
	}
	return o.lower.Open(name)
}

// ReadDir merges both layers' entries, upper first.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	up, errUp := fs.ReadDir(o.upper, name)
	low, errLow := fs.ReadDir(o.lower, name)
	if errUp != nil && errLow != nil {
		return nil, errLow
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, e := range append(up, low...) {
		if !seen[e.Name()] {
			seen[e.Name()] = true
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}
