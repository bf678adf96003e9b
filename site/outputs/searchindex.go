package outputs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/site/searchdoc"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// searchIndex is the site's search index as a build makes it: built anew
// from the sessions, or, when no session's share of it changed, its files
// linked from the cache, which skips preparing every session and writing
// thousands of files (the most of a warm build's time).
type searchIndex struct {
	*search.Index // nil when the index came from the cache
	c             site.Context
	key           string          // "" when the index is not cached
	include       map[string]bool // what it holds (search.include)

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
type searchOutput struct {
	site.Base
	index *searchIndex
}

func (*searchOutput) On(st *site.Site) bool { return st.Config.Search.Enabled }

func (o *searchOutput) Start(ctx context.Context, c site.Context) error {
	ix, err := newSearchIndex(c)
	if err != nil {
		return err
	}
	o.index = ix
	if ix.building() {
		n := len(c.Site().Sessions)
		ix.prepared, ix.ready, ix.appended = make([][]*search.Prepared, n), make(chan int, n), make(chan struct{})
		ix.kept = make([]int, n)
		go ix.appendInOrder(ctx)
	}
	return nil
}

func (o *searchOutput) Session(_ site.Context, j *site.Job) error {
	if ix := o.index; ix.building() {
		ix.prepared[j.Index] = ix.prepare(j.Session, j.Digest, j.Body)
		ix.ready <- j.Index
	}
	return nil
}

func (o *searchOutput) Finish(c site.Context) error {
	if err := o.index.write(); err != nil {
		return err
	}
	return writePage(c, "search", &site.Page{Kind: "search", Title: "Search", Path: "search/"})
}

// appendInOrder appends the sessions to the index in the site's order, as
// soon as they are ready. One ready before its turn waits in memory, or
// past holdPrepared in the cache, where prepare put it. Once ready is
// closed, every session is appended.
func (ix *searchIndex) appendInOrder(ctx context.Context) {
	defer close(ix.appended)
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
			if i != next {
				ix.hold(i)
			}
			ix.appendReady(ctx, ready, &next)
		}
	}
}

// hold keeps in memory the parts of session i, ready before its turn,
// while they fit in holdPrepared; past it, they are dropped, to be read
// back from the cache, which prepare put them in.
func (ix *searchIndex) hold(i int) {
	c := ix.c
	if ix.prepared[i] == nil || c.Cache() == nil || c.Digest(i) == "" {
		return
	}
	if n := size(ix.prepared[i]); ix.held+n <= holdPrepared {
		ix.kept[i], ix.held = n, ix.held+n
	} else {
		ix.prepared[i] = nil
	}
}

// appendReady appends the sessions from next on that are ready; one whose
// parts were let go is prepared again, from the cache.
func (ix *searchIndex) appendReady(ctx context.Context, ready []bool, next *int) {
	c := ix.c
	for ; *next < len(ready) && ready[*next]; *next++ {
		i := *next
		parts := ix.prepared[i]
		if parts == nil {
			parts = ix.prepare(c.Site().Sessions[i], c.Digest(i), func() (*transcript.Session, error) { return c.Load(ctx, i) })
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
func newSearchIndex(c site.Context) (*searchIndex, error) {
	ix := &searchIndex{c: c, key: indexKey(c), include: c.Site().Config.Search.Includes()}
	if ok, err := ix.link(); ok || err != nil {
		return ix, err
	}
	ix.Index = search.New(searchdoc.KindNames(), func(name string, data []byte) error {
		if ix.key != "" {
			// Stored by their content: after one session changed, most of
			// the files are those of the index before, stored already.
			key := c.Cache().PutBlob(data) // "" when it could not be: the list then misses
			ix.mu.Lock()
			ix.names = append(ix.names, name+" "+key)
			ix.mu.Unlock()
		}
		return c.Write("search/"+name, data)
	})
	return ix, nil
}

// building says whether sessions are to be prepared and appended.
func (ix *searchIndex) building() bool { return ix != nil && ix.Index != nil }

// indexKey names the index of the site's sessions: what each adds to it,
// in order. It is "" when a session's content is unknown or the cache is
// not on disk (serve writes the index to memory, where it costs little).
func indexKey(c site.Context) string {
	if c.Cache() == nil || c.InMemory() {
		return ""
	}
	parts := []string{"index", c.Theme(), strconv.Itoa(search.Version)} // the layout of its files: a site may keep an older search.js
	for i, s := range c.Site().Sessions {
		dig := c.Digest(i)
		if dig == "" {
			return ""
		}
		parts = append(parts, cache.Key(prepareParts(c.Theme(), dig, s)...))
	}
	return cache.Key(parts...)
}

// link copies the files of the cached index into the site, when the cache
// has every one of them, sound.
func (ix *searchIndex) link() (bool, error) {
	if ix.key == "" {
		return false, nil
	}
	list, ok := ix.c.Cache().Get(ix.key)
	if !ok {
		return false, nil
	}
	files := strings.Split(string(list), "\n")
	for i, f := range files {
		if name, key, _ := strings.Cut(f, " "); !ix.c.Copy("search/"+name, key) {
			for _, f := range files[:i] {
				name, _, _ := strings.Cut(f, " ")
				if err := ix.c.Remove("search/" + name); err != nil {
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
		ix.c.Cache().Put(ix.key, []byte(strings.Join(ix.names, "\n")))
	}
	return nil
}

// prepare readies a session for the search index, in parts, from the
// cache when it can; nil when the session cannot be read.
func (ix *searchIndex) prepare(s *site.Session, dig string, body func() (*transcript.Session, error)) []*search.Prepared {
	key := ix.c.Key(dig, prepareParts(ix.c.Theme(), dig, s)...)
	if parts, ok := cachedParts(ix.c, key); ok {
		return parts
	}
	full, err := body()
	if err != nil {
		return nil // the page says why
	}
	parts := site.SearchSession(s, full, ix.include)
	if key == "" {
		return parts
	}
	// The parts one after another, each after its length: a session's can
	// be hundreds of megabytes, and are never joined in memory. Most
	// sessions have one, small enough for the cache's table.
	frame := func(p *search.Prepared) ([]byte, error) {
		data, err := p.MarshalBinary()
		return append(binary.AppendUvarint(nil, uint64(len(data))), data...), err
	}
	if len(parts) == 1 {
		if data, err := frame(parts[0]); err == nil {
			ix.c.Cache().Put(key, data)
		}
		return parts
	}
	ix.c.Cache().Write(key, func(w io.Writer) error {
		for _, p := range parts {
			data, err := frame(p)
			if err == nil {
				_, err = w.Write(data)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return parts
}

// cachedParts reads back the parts prepare cached, one at a time.
func cachedParts(c site.Context, key string) ([]*search.Prepared, bool) {
	if key == "" {
		return nil, false
	}
	rc, ok := c.Cache().Open(key)
	if !ok {
		return nil, false
	}
	defer rc.Close()
	r := bufio.NewReader(rc)
	var parts []*search.Prepared
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF && len(parts) > 0 {
			return parts, true // and the entry was checked to its end
		}
		if err != nil || n > 1<<40 {
			return nil, false
		}
		data := make([]byte, n)
		p := new(search.Prepared)
		if _, err := io.ReadFull(r, data); err != nil || p.UnmarshalBinary(data) != nil {
			return nil, false
		}
		parts = append(parts, p)
	}
}

// writePage renders the page p of kind and writes it where its path says.
func writePage(c site.Context, kind string, p *site.Page) error {
	var buf bytes.Buffer
	if err := c.Render(&buf, kind, p); err != nil {
		return err
	}
	return c.Write(site.PageFile(p.Path), buf.Bytes())
}

// prepareParts names what a session adds to the search index, for its cache
// entry and the index's.
func prepareParts(theme, dig string, s *site.Session) []string {
	return []string{"search", theme, dig, s.Path, s.Title, s.Project.Name}
}
