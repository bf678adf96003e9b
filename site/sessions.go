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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

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
	return b.out.Write(s.Path+"index.html", buf.Bytes())
}

// sessionPage is a session's page. It comes from the cache when neither
// the session, nor what the page shows of other sessions, nor the theme
// has changed.
type sessionPage struct{ siteOutput }

func (sessionPage) session(b *builder, j *job) error {
	s := j.s
	key := b.sessionKey(j.dig, "page", b.theme, j.dig, b.contexts[j.i])
	err := b.cachedFile(pageFile(s.Path), key, func(w io.Writer) error {
		body, err := j.body()
		if err != nil {
			return err
		}
		pg := &Page{Kind: "session", Title: s.Title, Path: s.Path, Project: s.Project, Session: s, Site: b.site}
		pg.Turns = turnViews(pg, body)
		b.rendered.Add(1)
		return b.renderTo(w, "session", pg)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	return nil
}

// sidesOutput is the files beside a session's page: images, and outputs
// too long to show whole. Both are named by their content, so a repeated
// one is written once and the cache keeps it by its name; the cache keeps
// the names of a session's files too, so that a warm build needs no
// turns.
type sidesOutput struct{ siteOutput }

func (sidesOutput) session(b *builder, j *job) error {
	if err := b.sides(j.s, j.dig, j.body); err != nil {
		return fmt.Errorf("%s: %w", j.s.Source, err)
	}
	return nil
}

// sides writes the files beside a session's page.
func (b *builder) sides(s *Session, dig string, body func() (*transcript.Session, error)) error {
	listKey := b.sessionKey(dig, "sides", b.theme, dig) // the program decides which outputs are too long
	var names []string
	var data map[string]func() ([]byte, error)
	if list, ok := b.getCached(listKey); ok {
		names = strings.Fields(string(list))
	} else {
		full, err := body()
		if err != nil {
			return err
		}
		names, data = b.sideFiles(full)
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
				full, err := body()
				if err != nil {
					return err
				}
				_, data = b.sideFiles(full)
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
func (b *builder) sideFiles(s *transcript.Session) ([]string, map[string]func() ([]byte, error)) {
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
		if c := p.Call; c != nil {
			for _, f := range c.Args.Rest { // a field of an input the page lists, too long to show whole
				if v := f.Value; render.IsHuge(v) {
					add(render.OutputFile(v), func() ([]byte, error) { return []byte(v), nil })
				}
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
func (b *builder) prepare(s *Session, dig string, body func() (*transcript.Session, error)) []*search.Prepared {
	key := b.sessionKey(dig, prepareParts(b.theme, dig, s)...)
	if parts, ok := b.cachedParts(key); ok {
		return parts
	}
	full, err := body()
	if err != nil {
		return nil // the page says why
	}
	parts := searchSession(s, full, b.include)
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

// unit is sessions made together: those of one group of files that were
// read, and are read back, together (see ingest.Result.Groups); or one
// session of a group held in memory, which costs nothing to read back.
type unit struct {
	group    int                  // in ingest.Result.Groups
	members  []*transcript.Header // the group's sessions, in the order Load returns their bodies
	sessions []int                // indices in the site's sessions
	// left counts the units of a held group not yet made: the last lets
	// the group go, which a big build would otherwise hold to its end.
	left *atomic.Int32
}

// makeUnits puts the site's sessions in units, and says which each is in.
func (b *builder) makeUnits() ([]unit, []int) {
	at := make(map[*transcript.Header]int, len(b.site.Sessions))
	for i, s := range b.site.Sessions {
		at[s.header] = i
	}
	var us []unit
	for g, members := range b.res.Groups() {
		u := unit{group: g, members: members}
		from := len(us)
		for _, m := range members {
			i, ok := at[m]
			switch {
			case !ok: // not shown
			case b.res.Held(g):
				us = append(us, unit{group: g, members: members, sessions: []int{i}})
			default:
				u.sessions = append(u.sessions, i)
			}
		}
		if len(u.sessions) > 0 {
			us = append(us, u)
		}
		if b.res.Held(g) {
			left := new(atomic.Int32)
			left.Store(int32(len(us) - from))
			for k := from; k < len(us); k++ {
				us[k].left = left
			}
		}
	}
	unitOf := make([]int, len(b.site.Sessions))
	for u, un := range us {
		for _, i := range un.sessions {
			unitOf[i] = u
		}
	}
	return us, unitOf
}

// loader returns how to get the body of a session of u: u's group's bodies
// are loaded once, when a session first needs them, and let go with the
// loader.
func (b *builder) loader(ctx context.Context, u unit) func(*Session) (*transcript.Session, error) {
	load := sync.OnceValues(func() ([]*transcript.Session, error) { return b.res.Load(ctx, u.group) })
	return func(s *Session) (*transcript.Session, error) {
		ss, err := load()
		if err != nil {
			return nil, err
		}
		return ss[slices.Index(u.members, s.header)], nil
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
	for _, l := range s.header.Summary.Subagents {
		subagents[l.Session] = pg.SessionURL(l.Session)
	}
	data, _ := json.Marshal([]any{s.Path, s.Title, s.Project.Name, s.Project.Path,
		link(s.Prev), link(s.Next), link(pg.Parent()), children, subagents, len(s.Volumes), s.first})
	return string(data)
}

// digest identifies a session's content without reading it again: the
// hashes of the files it was read from, and the links a reader's Merge may
// set from other files (see ingest.Reader.Merge). It is "" when a file's
// hash is unknown, and the session is then rendered every time.
func digest(s *Session, hashes map[string]string) string {
	parts := []string{"session", s.Format, s.ID, strconv.Itoa(s.Volume), s.Title, s.ParentID, strings.Join(s.ChildIDs, "\x00")}
	for _, src := range append([]string{s.Source}, s.Sources...) {
		h, ok := hashes[src]
		if !ok {
			return ""
		}
		parts = append(parts, src, h)
	}
	for _, l := range s.header.Summary.Subagents {
		parts = append(parts, l.CallID, l.Session)
	}
	return cache.Key(parts...)
}
