package site

import (
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site/search"
)

// searchIndex is the site's search index as a build makes it: built anew
// from the sessions, or, when no session's share of it changed, its files
// linked from the cache, which skips preparing every session and writing
// thousands of files (the most of a warm build's time).
type searchIndex struct {
	*search.Index // nil when the index came from the cache
	b             *builder
	key           string // "" when the index is not cached

	mu    sync.Mutex
	names []string // the files written, to cache them
}

// newSearchIndex links the cached index for sessions of these digests, or
// starts building one.
func (b *builder) newSearchIndex(digs []string) (*searchIndex, error) {
	ix := &searchIndex{b: b, key: b.indexKey(digs)}
	if ok, err := ix.link(); ok || err != nil {
		return ix, err
	}
	ix.Index = search.New(toolKindNames(), func(name string, data []byte) error {
		ix.mu.Lock()
		ix.names = append(ix.names, name)
		ix.mu.Unlock()
		return b.out.write("search/"+name, data)
	})
	return ix, nil
}

// building says whether sessions are to be prepared and appended.
func (ix *searchIndex) building() bool { return ix != nil && ix.Index != nil }

// indexKey names the index of the site's sessions: what each adds to it,
// in order. It is "" when a session's content is unknown or the cache is
// not on disk (serve writes the index to memory, where it costs little).
func (b *builder) indexKey(digs []string) string {
	if b.store == nil || b.memory {
		return ""
	}
	parts := []string{"index", b.theme}
	for i, s := range b.site.Sessions {
		if digs[i] == "" {
			return ""
		}
		parts = append(parts, cache.Key(prepareParts(b.theme, digs[i], s)...))
	}
	return cache.Key(parts...)
}

// link copies the files of the cached index into the site, when the cache
// has every one of them, sound.
func (ix *searchIndex) link() (bool, error) {
	if ix.key == "" {
		return false, nil
	}
	list, ok := ix.b.store.Get(ix.key)
	if !ok {
		return false, nil
	}
	names := strings.Split(string(list), "\n")
	for i, name := range names {
		if !ix.b.fromCache("search/"+name, cache.Key(ix.key, name)) {
			for _, n := range names[:i] {
				if err := ix.b.out.remove("search/" + n); err != nil {
					return false, err
				}
			}
			return false, nil
		}
	}
	return true, nil
}

// write writes the rest of an index being built and gives its files to
// the cache.
func (ix *searchIndex) write() error {
	if !ix.building() {
		return nil
	}
	if err := ix.Write(); err != nil {
		return err
	}
	if ix.key == "" {
		return nil
	}
	for _, name := range ix.names {
		ix.b.toCache("search/"+name, cache.Key(ix.key, name))
	}
	ix.b.store.Put(ix.key, []byte(strings.Join(ix.names, "\n")))
	return nil
}
