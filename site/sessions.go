package site

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/parallel"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// sessions renders every session page and prepares it for the search
// index, on every core, and returns the index. Sessions read together are
// rendered together, their turns loaded once for all of them and only if
// the cache lacks something one of them needs.
func (b *builder) sessions(ctx context.Context) (*searchIndex, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(b.site.Sessions)
	prepared := make([][]*search.Prepared, n)
	failed := make([]error, n)
	digs := make([]string, n)
	if b.store != nil {
		for i, s := range b.site.Sessions {
			digs[i] = digest(s, b.hashes)
		}
	}
	var index *searchIndex
	if b.site.Config.Search.Enabled {
		var err error
		if index, err = b.newSearchIndex(digs); err != nil {
			return nil, err
		}
	}
	units := b.units()
	unitOf := make([]int, n)
	for u, un := range units {
		for _, i := range un.sessions {
			unitOf[i] = u
		}
	}
	work := make(chan int)
	done := make(chan int, n)
	var wg sync.WaitGroup
	for range workers() {
		wg.Go(func() {
			for u := range work {
				load := b.loader(ctx, units[u])
				for _, i := range units[u].sessions {
					s, dig := b.site.Sessions[i], digs[i]
					full := func() (*Session, error) { return load(s) }
					if index.building() {
						prepared[i] = b.prepare(s, dig, full)
					}
					failed[i] = b.session(s, dig, full)
					done <- i
				}
			}
		})
	}
	go func() {
		defer close(work)
		// The biggest first; a session's size is its tool calls and
		// messages, which is what its page costs.
		order := parallel.LargestFirst(len(units), func(u int) int64 {
			var size int64
			for _, i := range units[u].sessions {
				st := b.site.Sessions[i].Stats
				size += int64(st.Messages + st.ToolCalls)
			}
			return size
		})
		for _, u := range order {
			select {
			case work <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	// Sessions join the index in the site's order, as soon as they are
	// ready. One ready before its turn waits in the cache, where prepare
	// put it, so that the postings of all are never held at once.
	ready := make([]bool, n)
	next := 0
	for i := range done {
		ready[i] = true
		if i != next && prepared[i] != nil && b.store != nil && digs[i] != "" {
			prepared[i] = nil
		}
		for ; next < n && ready[next]; next++ {
			if !index.building() {
				continue
			}
			parts := prepared[next]
			if parts == nil {
				parts = b.prepare(b.site.Sessions[next], digs[next], func() (*Session, error) {
					return b.loader(ctx, units[unitOf[next]])(b.site.Sessions[next])
				})
			}
			for _, p := range parts {
				index.Append(p)
			}
			prepared[next] = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// One session that the theme cannot render must not sink the others;
	// when none renders, the theme is broken and the build fails.
	var errs []error
	for i, err := range failed {
		if err == nil {
			continue
		}
		errs = append(errs, err)
		s := b.site.Sessions[i]
		// A warning, which --strict counts: the site lacks what it should hold.
		b.warnings = append(b.warnings, ingest.Warning{File: s.Source,
			Msg: fmt.Sprintf("the page of session %s could not be made, and says so in its place: %v", s.ID, err)})
		if err := b.fallback(s, err); err != nil {
			return nil, err
		}
	}
	if len(errs) > 0 && len(errs) == len(failed) {
		return nil, errs[0]
	}
	return index, nil // nil when the site has no search
}

// workers is how many sessions render at once: one more than the cores,
// so that a core whose worker waits on the disk (creating a file is slow
// on some) has another to run.
func workers() int { return runtime.GOMAXPROCS(0) + 1 }

// fallbackPage stands in for a session page the theme failed to render,
// so links to it still lead somewhere that says why.
var fallbackPage = template.Must(template.New("").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<title>{{.Title}}</title></head><body><h1>{{.Title}}</h1>
<p>This session's page could not be rendered: {{.Err}}</p><p>Its source is <code>{{.Source}}</code>.</p></body></html>
`))

func (b *builder) fallback(s *Session, err error) error {
	var buf bytes.Buffer
	if err := fallbackPage.Execute(&buf, map[string]any{"Title": s.Title, "Err": err.Error(), "Source": s.Source}); err != nil {
		return err
	}
	return b.out.write(s.Path+"index.html", buf.Bytes())
}

func (b *builder) session(s *Session, dig string, full func() (*Session, error)) error {
	if err := b.sides(s, dig, full); err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	if err := b.exports(s, dig, full); err != nil {
		return err
	}
	// The page comes from the cache when neither the session, nor what the
	// page shows of other sessions, nor the theme has changed.
	key := b.sessionKey(dig, "page", b.theme, dig, pageContext(s))
	err := b.cachedFile(pageFile(s.Path), key, func(w io.Writer) error {
		fs, err := full()
		if err != nil {
			return err
		}
		pg := &Page{Kind: "session", Title: fs.Title, Path: fs.Path, Project: fs.Project, Session: fs, Site: b.site}
		pg.Turns = turnViews(pg)
		b.rendered.Add(1)
		return b.renderTo(w, "session", pg)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	return nil
}

// sides writes the files beside a session's page: images, and outputs too
// long to show whole. Both are named by their content, so a repeated one is
// written once and the cache keeps it by its name; the cache keeps the
// names of a session's files too, so that a warm build needs no turns.
func (b *builder) sides(s *Session, dig string, full func() (*Session, error)) error {
	listKey := b.sessionKey(dig, "sides", b.theme, dig) // the program decides which outputs are too long
	var names []string
	var data map[string]func() ([]byte, error)
	if list, ok := b.getCached(listKey); ok {
		names = strings.Fields(string(list))
	} else {
		fs, err := full()
		if err != nil {
			return err
		}
		names, data = b.sideFiles(fs)
		if listKey != "" {
			b.store.Put(listKey, []byte(strings.Join(names, "\n")))
		}
	}
	for _, name := range names {
		var key string
		if b.store != nil {
			key = cache.Key("side", name)
		}
		err := b.cachedFile(s.Path+name, key, func(w io.Writer) error {
			if data == nil {
				fs, err := full()
				if err != nil {
					return err
				}
				_, data = b.sideFiles(fs)
			}
			get := data[name]
			if get == nil {
				return fmt.Errorf("%s: no longer in the session", name)
			}
			d, err := get()
			if err == nil {
				_, err = w.Write(d)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sideFiles names the files beside a session's page, in order, and how to
// get each one's content.
func (b *builder) sideFiles(s *Session) ([]string, map[string]func() ([]byte, error)) {
	var names []string
	data := map[string]func() ([]byte, error){}
	add := func(name string, get func() ([]byte, error)) {
		if name != "" && data[name] == nil {
			names = append(names, name)
			data[name] = get
		}
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		for _, img := range p.Images() {
			add(imageURL(img), func() ([]byte, error) {
				if img.Blob != "" {
					return b.blob(img.Blob)
				}
				return img.Data, nil
			})
		}
		if r := p.Result; r != nil {
			if out := r.Output; render.IsHuge(out) {
				add(render.OutputFile(out), func() ([]byte, error) { return []byte(render.StripANSI(out)), nil })
			}
		}
	})
	return names, data
}

// sessionKey names the cache entry made of parts for a session whose
// content digest is dig: "" (no entry) when the build has no cache or the
// session's content is unknown, so it is made every time.
func (b *builder) sessionKey(dig string, parts ...string) string {
	if b.store == nil || dig == "" {
		return ""
	}
	return cache.Key(parts...)
}

// getCached returns the cache entry key; a build without a cache, or a
// key of "", misses.
func (b *builder) getCached(key string) ([]byte, bool) {
	if key == "" {
		return nil, false
	}
	return b.store.Get(key)
}

// prepare readies a session for the search index, in parts, from the
// cache when it can; nil when the session cannot be read.
func (b *builder) prepare(s *Session, dig string, full func() (*Session, error)) []*search.Prepared {
	key := b.sessionKey(dig, prepareParts(b.theme, dig, s)...)
	if parts, ok := b.cachedParts(key); ok {
		return parts
	}
	fs, err := full()
	if err != nil {
		return nil // the page says why
	}
	parts := searchSession(fs, b.include)
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
			b.store.Put(key, data)
		}
		return parts
	}
	b.store.Write(key, func(w io.Writer) error {
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
func (b *builder) cachedParts(key string) ([]*search.Prepared, bool) {
	if key == "" {
		return nil, false
	}
	rc, ok := b.store.Open(key)
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

// unit is sessions rendered together: those of one group of files that
// were read, and are read back, together (see ingest.Result.Groups).
type unit struct {
	group    int                   // -1 for a session that kept its turns
	members  []*transcript.Session // the group's sessions, as Load returns them
	sessions []int                 // indices in the site's sessions
}

func (b *builder) units() []unit {
	at := make(map[*transcript.Session]int, len(b.site.Sessions))
	for i, s := range b.site.Sessions {
		at[s.Session] = i
	}
	var us []unit
	if b.res != nil {
		for g, members := range b.res.Groups() {
			u := unit{group: g, members: members}
			for _, m := range members {
				if i, ok := at[m]; ok && m.Kept != nil {
					u.sessions = append(u.sessions, i)
					delete(at, m)
				}
			}
			if len(u.sessions) > 0 {
				us = append(us, u)
			}
		}
	}
	for i, s := range b.site.Sessions {
		if _, ok := at[s.Session]; ok {
			us = append(us, unit{group: -1, sessions: []int{i}})
		}
	}
	return us
}

// loader returns how to get a session of u with its turns: the session
// itself when it kept them, or else u's group is loaded, once, when a
// session first needs it, and dropped with the loader.
func (b *builder) loader(ctx context.Context, u unit) func(*Session) (*Session, error) {
	load := sync.OnceValues(func() ([]*transcript.Session, error) { return b.res.Load(ctx, u.group) })
	return func(s *Session) (*Session, error) {
		if s.Kept == nil {
			return s, nil
		}
		ss, err := load()
		if err != nil {
			return nil, err
		}
		full := *s
		full.Session = ss[slices.Index(u.members, s.Session)]
		return &full, nil
	}
}

// prepareParts names what a session adds to the search index, for its cache
// entry and the index's.
func prepareParts(theme, dig string, s *Session) []string {
	return []string{"search", theme, dig, s.Path, s.Title, s.Project.Name}
}

// pageContext is what a session's page shows of the rest of the site.
func pageContext(s *Session) string {
	link := func(o *Session) [2]string {
		if o == nil {
			return [2]string{}
		}
		return [2]string{o.Path, o.Title}
	}
	var children [][2]string
	pg := &Page{Session: s, Site: s.site}
	for _, c := range pg.Children() {
		children = append(children, link(c))
	}
	subagents := map[string]string{}
	for _, l := range s.summary.Subagents {
		subagents[l.Session] = pg.SessionURL(l.Session)
	}
	data, _ := json.Marshal([]any{s.Path, s.Title, s.Project.Name, s.Project.Path,
		link(s.Prev), link(s.Next), link(pg.Parent()), children, subagents})
	return string(data)
}

// digest identifies a session's content without reading it again: the
// hashes of the files it was read from, and the links a reader's Merge may
// set from other files (see ingest.Reader.Merge). It is "" when a file's
// hash is unknown, and the session is then rendered every time.
func digest(s *Session, hashes map[string]string) string {
	parts := []string{"session", s.Format, s.ID, s.Title, s.ParentID, strings.Join(s.ChildIDs, "\x00")}
	for _, src := range append([]string{s.Source}, s.Sources...) {
		h, ok := hashes[src]
		if !ok {
			return ""
		}
		parts = append(parts, src, h)
	}
	for _, l := range s.summary.Subagents {
		parts = append(parts, l.CallID, l.Session)
	}
	return cache.Key(parts...)
}
