package ingest

import (
	"cmp"
	"slices"
	"strings"
)

// How sure a reader is that a file is in its format (Reader.Detect).
// Readers may return any value from 0 to Certain.
const (
	Certain = 1.0  // a mark only its agent writes
	Likely  = 0.75 // records of a shape particular to its agent
	Maybe   = 0.5  // a shape other formats could share, or one the file's name or folder confirms
	Weak    = 0.25 // text that only looks like it
)

// When is c when ok, and 0 otherwise.
func When(ok bool, c float64) float64 {
	if ok {
		return c
	}
	return 0
}

// Readers are the registered readers, by name: the readers of every
// format that the packages of agents this program imports registered.
var Readers []*Reader

// Register adds r to the readers. Each agent's package registers its
// readers when it is imported (ingest/agents imports them all); register
// only while the program starts.
func Register(r *Reader) {
	if r.Tools == nil {
		r.Tools = &Tools{}
	}
	i, _ := slices.BinarySearchFunc(Readers, r, func(a, b *Reader) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Files, b.Files))
	})
	Readers = slices.Insert(Readers, i, r)
}

// Detect returns the reader most sure that the file whose head is h is in
// its format, or nil when none is. Of readers equally sure, the first by
// name reads it.
func Detect(h *Head) *Reader {
	var best *Reader
	top := 0.0
	for _, r := range Readers {
		if c := r.Detect(h); c > top {
			best, top = r, c
		}
	}
	return best
}

// Lookup returns the reader with the given format name. Two readers may
// share a name when they read two containers of one format (specstory's
// SessionData and Markdown): Lookup returns the first, and a name stays a
// format, whichever reader read a file.
func Lookup(name string) *Reader {
	i := slices.IndexFunc(Readers, func(r *Reader) bool { return r.Name == name })
	if i < 0 {
		return nil
	}
	return Readers[i]
}
