package ingest

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"path"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Files are merged in groups: the smallest sets of files whose sessions a
// reader's Merge may join. Two files share a group when they share a link:
// a session id one of them holds or names (as a parent, a child or the
// subagent of a tool call), or a reader's own link (Reader.Links). Merging
// each group alone gives what merging every session of the format at once
// would, and lets a big site hold the turns of a few groups at a time.

// links lists what ss may be merged by with sessions of other files.
func (r *Reader) links(ss []*transcript.Session) []string {
	if r.Merge == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(l string) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	for _, s := range ss {
		if s.Volume > 1 {
			continue // a volume after the first is not merged (finish)
		}
		add("id\x00" + s.ID)
		for _, id := range relatives(s) {
			add("id\x00" + id)
		}
		for _, l := range r.ownLinks(s) {
			add("x\x00" + l)
		}
	}
	return out
}

// relatives are the ids of the sessions s names: its parent, its
// children, and the subagents of its tool calls.
func relatives(s *transcript.Session) []string {
	var ids []string
	for _, id := range append([]string{s.ParentID}, s.ChildIDs...) {
		if id != "" {
			ids = append(ids, id)
		}
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil && p.Call.Subagent != "" {
			ids = append(ids, p.Call.Subagent)
		}
	})
	return ids
}

// ownLinks are r's own links of s (Reader.Links), when it has any.
func (r *Reader) ownLinks(s *transcript.Session) []string {
	if r.Links == nil {
		return nil
	}
	return r.Links(s)
}

// group is a set of files merged together, and the sessions they gave.
type group struct {
	reader  *Reader
	files   []int
	keys    []string              // the cache entries of its files, when its sessions can be read back
	bodies  []*transcript.Session // its sessions whole, while it holds them
	headers []*transcript.Header  // its sessions' headers, in the order of bodies
}

// cacheKeys returns the cache entries of the group's files, or nil when
// one has none (it could not be hashed): then the group cannot be read
// back, and its merged sessions stay in memory.
func (g *group) cacheKeys(reads []read) []string {
	keys := make([]string, len(g.files))
	for i, f := range g.files {
		if keys[i] = reads[f].key; keys[i] == "" {
			return nil
		}
	}
	return keys
}

// held reports whether every file of the group still holds its sessions.
func (g *group) held(reads []read) bool {
	for _, f := range g.files {
		if reads[f].released {
			return false
		}
	}
	return true
}

// release drops the sessions its files still hold: merging changes them,
// so a group is merged from memory or from the cache, never from both.
func (g *group) release(reads []read) {
	for _, f := range g.files {
		reads[f].sessions, reads[f].released = nil, true
	}
}

// groupFiles puts files that share a link in one group. Groups are in the
// order of the table of readers, then of their first file.
func groupFiles(reads []read) []*group {
	up := make([]int, len(reads))
	for i := range up {
		up[i] = i
	}
	var root func(int) int
	root = func(i int) int {
		if up[i] != i {
			up[i] = root(up[i])
		}
		return up[i]
	}
	first := map[string]int{}
	for i, rd := range reads {
		if rd.reader == nil {
			continue
		}
		for _, l := range rd.links {
			l = rd.reader.Name + "\x00" + l
			if j, ok := first[l]; ok {
				a, b := root(i), root(j)
				up[max(a, b)] = min(a, b) // a group's root is its first file
			} else {
				first[l] = i
			}
		}
	}
	byRoot := map[int]*group{}
	var groups []*group
	for i, rd := range reads {
		if rd.reader == nil {
			continue
		}
		g := byRoot[root(i)]
		if g == nil {
			g = &group{reader: rd.reader}
			byRoot[root(i)] = g
			groups = append(groups, g)
		}
		g.files = append(g.files, i)
	}
	order := func(g *group) int { return slices.Index(Readers, g.reader) }
	slices.SortStableFunc(groups, func(a, b *group) int {
		return cmp.Or(cmp.Compare(order(a), order(b)), cmp.Compare(a.files[0], b.files[0]))
	})
	return groups
}

// merge joins the sessions of a group's files and finishes them: from
// memory, or from the cache when they were released. A file the cache
// lost since (another build's --gc, a disk that filled) is read again.
// With args, it fills their tool calls' Args, which only pages need.
func merge(ctx context.Context, opts Options, g *group, reads []read, args bool) ([]*transcript.Session, error) {
	var ss []*transcript.Session
	for _, i := range g.files {
		if !reads[i].released {
			// The group's now: Merge may join them into others, and what
			// it leaves out must not stay reachable through the file.
			ss = append(ss, reads[i].sessions...)
			reads[i].sessions = nil
			continue
		}
		if p, err := openParsed(ctx, opts.Cache, reads[i].key); err == nil {
			ss = append(ss, p.Sessions...)
			continue
		}
		rd := reads[i]
		f := &File{Rel: rd.rel, FS: rd.fsys, Name: rd.name, blobs: opts.Blobs}
		var again []*transcript.Session
		r := readPieces(ctx, rd.fsys, rd.name, f, PieceBytes, func(_ *Reader, k int, piece []*transcript.Session, _ int64) {
			if k == rd.piece {
				again = piece
			}
		})
		if r != g.reader {
			return nil, fmt.Errorf("%s: no longer in the cache, and no longer a %s file", rd.rel, g.reader.Name)
		}
		transform(opts, again)
		ss = append(ss, again...)
	}
	return finish(opts, g.reader, ss, args), nil
}

// finish joins sessions of r's format as r merges them, and finishes each;
// with args it fills their tool calls' Args. Volumes after the first of a
// session are not merged: merging would join them into one again.
func finish(opts Options, r *Reader, ss []*transcript.Session, args bool) []*transcript.Session {
	if r.Merge != nil && len(ss) > 0 {
		var later []*transcript.Session
		ss = slices.DeleteFunc(ss, func(s *transcript.Session) bool {
			if s.Volume > 1 {
				later = append(later, s)
			}
			return s.Volume > 1
		})
		if len(ss) > 0 {
			ss = r.Merge(ss)
		}
		ss = append(ss, later...)
	}
	for _, s := range ss {
		s.Finish()
		if args {
			r.Tools.fill(s)
		}
		if opts.Merged != nil {
			opts.Merged(s)
		}
	}
	return ss
}

// LoadFile reads the file name of root as Load reads it, on its own: its
// sessions whole, merged, finished and changed as opts says, and the
// warnings about it, without walking the folder it is in or using a
// cache.
func LoadFile(ctx context.Context, opts Options, root Root, name string) ([]*transcript.Session, []Warning) {
	f := &File{Rel: path.Join(root.Name, name), FS: root.FS, Name: name, blobs: opts.Blobs}
	r, ss := ReadFile(ctx, root.FS, name, f)
	if r == nil {
		return nil, f.Warnings
	}
	transform(opts, ss)
	return finish(opts, r, ss, true), f.Warnings
}

// openParsed reads a parsed file back from the cache.
func openParsed(ctx context.Context, c Cache, key string) (*parsed, error) {
	rc, ok := c.Open(key)
	if !ok {
		return nil, fmt.Errorf("no longer in the cache")
	}
	defer rc.Close()
	var p parsed
	br := bufio.NewReaderSize(ctxReader{ctx, rc}, 64<<10)
	err := p.decode(br)
	if err == nil {
		// The cache vouches for an entry once it is read to its end.
		_, err = io.Copy(io.Discard, br)
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry unreadable: %w", err)
	}
	return &p, nil
}

// summarise merges a released group and keeps only its headers, from the
// cache when its files are the same as when it was last summarised.
func summarise(ctx context.Context, opts Options, g *group, reads []read) ([]*transcript.Header, error) {
	c := opts.Cache
	if data, ok := c.Get(groupKey(g.keys)); ok {
		if hs, err := decodeHeaders(data); err == nil {
			return hs, nil
		}
	}
	ss, err := merge(ctx, opts, g, reads, false)
	if err != nil {
		return nil, err
	}
	hs := headers(ss)
	putHeaders(c, g.keys, hs)
	return hs, nil
}

// headers returns the headers of ss.
func headers(ss []*transcript.Session) []*transcript.Header {
	hs := make([]*transcript.Header, len(ss))
	for i, s := range ss {
		hs[i] = s.Header()
	}
	return hs
}

// putHeaders caches the headers of a group's merged sessions under the
// group's file entries, unless JSON cannot hold them as they are (see
// cacheJSON): the group is then merged again at each build.
func putHeaders(c Cache, keys []string, hs []*transcript.Header) {
	if data, err := jsonv2.Marshal(hs, cacheJSON); err == nil {
		c.Put(groupKey(keys), data)
	}
}

// decodeHeaders decodes what putHeaders cached.
func decodeHeaders(data []byte) ([]*transcript.Header, error) {
	var hs []*transcript.Header
	err := jsonv2.Unmarshal(data, &hs, cacheJSON)
	for _, h := range hs {
		if h != nil && h.Session != nil {
			h.Pack()
		}
	}
	return hs, err
}

func groupKey(keys []string) string { return cache.Key(append([]string{"group"}, keys...)...) }

// Groups returns the headers of the sessions Load reads back together.
func (r *Result) Groups() [][]*transcript.Header {
	out := make([][]*transcript.Header, len(r.groups))
	for i, g := range r.groups {
		out[i] = g.headers
	}
	return out
}

// Held reports whether group i holds its bodies, so that Load costs
// nothing.
func (r *Result) Held(i int) bool { return r.groups[i].bodies != nil }

// Drop lets go of the bodies the groups hold that Load can read back from
// the cache.
func (r *Result) Drop() {
	for i := range r.groups {
		r.Release(i)
	}
}

// Release lets go of group i's bodies, if Load can read them back from
// the cache.
func (r *Result) Release(i int) {
	if g := r.groups[i]; g.keys != nil {
		g.release(r.reads)
		g.bodies = nil
	}
}

// Load returns the bodies of group i, in the order of its headers: those
// it holds, or else read again from the cache and merged again.
func (r *Result) Load(ctx context.Context, i int) ([]*transcript.Session, error) {
	g := r.groups[i]
	if g.bodies != nil || g.keys == nil {
		return g.bodies, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ss, err := merge(ctx, r.opts, g, r.reads, true)
	if err != nil {
		return nil, err
	}
	if len(ss) != len(g.headers) {
		return nil, fmt.Errorf("%s: read back %d sessions, not %d", g.headers[0].Session.Source, len(ss), len(g.headers))
	}
	for j, s := range ss {
		if h := g.headers[j].Session; s.ID != h.ID || s.Source != h.Source {
			return nil, fmt.Errorf("%s: read back session %s in place of %s", h.Source, s.ID, h.ID)
		}
	}
	return ss, nil
}
