package siteconfig

import (
	"io/fs"
	"slices"
	"strings"
)

// Overlay is a file system where files of Upper hide those of Lower with the
// same path: a site's own templates and assets override the theme's, file by
// file, as in Hugo.
type Overlay struct{ Upper, Lower fs.FS }

func (o Overlay) Open(name string) (fs.File, error) {
	if f, err := o.Upper.Open(name); err == nil {
		if st, err := f.Stat(); err == nil && !st.IsDir() {
			return f, nil
		}
		f.Close()
	}
	return o.Lower.Open(name)
}

// ReadDir merges both layers' entries, Upper first.
func (o Overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	up, errUp := fs.ReadDir(o.Upper, name)
	low, errLow := fs.ReadDir(o.Lower, name)
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
