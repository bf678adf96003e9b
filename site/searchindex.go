package site

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
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
	names []string // the files written and their blobs' keys, "name key", to cache the list

	prepared [][]*search.Prepared // by session, until it is appended
	ready    chan int             // sessions prepared
	appended chan struct{}        // closed when every session is
	kept     []int                // by session, the bytes it holds while it waits in memory
	held     int                  // what they add up to
}

// holdPrepared is how much of sessions prepared before their turn stays
// in memory. Pages are made in the site's order but for the big sessions,
// which go first and so are ready before their turn: dropped, each would
// be decoded again from the cache by the one goroutine that appends, which
// then ends a build alone. Past it, they wait in the cache, so that the
// postings of all are never held at once.
const holdPrepared = 64 << 20

// searchOutput is the search index of every session, and search/, the
// page that queries it.
type searchOutput struct{ siteOutput }

func (searchOutput) on(cfg *Config) bool { return cfg.Search.Enabled }

func (searchOutput) start(ctx context.Context, b *builder) error {
	ix, err := b.newSearchIndex(b.digs)
	if err != nil {
		return err
	}
	b.index = ix
	if ix.building() {
		n := len(b.site.Sessions)
		ix.prepared, ix.ready, ix.appended = make([][]*search.Prepared, n), make(chan int, n), make(chan struct{})
		ix.kept = make([]int, n)
		go ix.appendInOrder(ctx)
	}
	return nil
}

func (searchOutput) session(b *builder, j *job) error {
	if ix := b.index; ix.building() {
		ix.prepared[j.i] = b.prepare(j.s, j.dig, j.body)
		ix.ready <- j.i
	}
	return nil
}

func (searchOutput) finish(b *builder) error {
	if err := b.index.write(); err != nil {
		return err
	}
	return b.page("search", &Page{Kind: "search", Title: "Search", Path: "search/"})
}

// appendInOrder appends the sessions to the index in the site's order, as
// soon as they are ready. One ready before its turn waits in memory, or
// past holdPrepared in the cache, where prepare put it. Once ready is
// closed, every session is appended.
func (ix *searchIndex) appendInOrder(ctx context.Context) {
	defer close(ix.appended)
	b := ix.b
	ready := make([]bool, len(ix.prepared))
	next := 0
	for {
		select {
		case <-ctx.Done():
			return
		case i, ok := <-ix.ready:
			if !ok {
				for i := range ready {
					ready[i] = true
				}
				ix.appendReady(ctx, ready, &next)
				return
			}
			ready[i] = true
			if i != next && ix.prepared[i] != nil && b.store != nil && b.digs[i] != "" {
				if n := size(ix.prepared[i]); ix.held+n <= holdPrepared {
					ix.kept[i], ix.held = n, ix.held+n
				} else {
					ix.prepared[i] = nil
				}
			}
			ix.appendReady(ctx, ready, &next)
		}
	}
}

// appendReady appends the sessions from next on that are ready; one whose
// parts were let go is prepared again, from the cache.
func (ix *searchIndex) appendReady(ctx context.Context, ready []bool, next *int) {
	b := ix.b
	for ; *next < len(ready) && ready[*next]; *next++ {
		i := *next
		parts := ix.prepared[i]
		if parts == nil {
			s := b.site.Sessions[i]
			parts = b.prepare(s, b.digs[i], func() (*transcript.Session, error) { return b.loader(ctx, b.units[b.unitOf[i]])(s) })
		}
		ix.held -= ix.kept[i]
		for _, p := range parts {
			ix.Append(p)
		}
		ix.prepared[i] = nil
	}
}

func size(parts []*search.Prepared) int {
	n := 0
	for _, p := range parts {
		n += p.Size()
	}
	return n
}

// newSearchIndex links the cached index for sessions of these digests, or
// starts building one.
func (b *builder) newSearchIndex(digs []string) (*searchIndex, error) {
	ix := &searchIndex{b: b, key: b.indexKey(digs)}
	if ok, err := ix.link(); ok || err != nil {
		return ix, err
	}
	ix.Index = search.New(toolKindNames(), func(name string, data []byte) error {
		if ix.key != "" {
			// Stored by their content: after one session changed, most of
			// the files are those of the index before, stored already.
			key := b.store.PutBlob(data) // "" when it could not be: the list then misses
			ix.mu.Lock()
			ix.names = append(ix.names, name+" "+key)
			ix.mu.Unlock()
		}
		return b.out.Write("search/"+name, data)
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
	parts := []string{"index", b.theme, strconv.Itoa(search.Version)} // the layout of its files: a site may keep an older search.js
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
	files := strings.Split(string(list), "\n")
	for i, f := range files {
		if name, key, _ := strings.Cut(f, " "); !ix.b.fromCache("search/"+name, key) {
			for _, f := range files[:i] {
				name, _, _ := strings.Cut(f, " ")
				if err := ix.b.out.Remove("search/" + name); err != nil {
					return false, err
				}
			}
			return false, nil
		}
	}
	return true, nil
}

// write writes the rest of an index being built, and the list of its
// files to the cache.
func (ix *searchIndex) write() error {
	if !ix.building() {
		return nil
	}
	close(ix.ready)
	<-ix.appended
	if err := ix.Write(); err != nil {
		return err
	}
	if ix.key != "" {
		ix.b.store.Put(ix.key, []byte(strings.Join(ix.names, "\n")))
	}
	return nil
}
