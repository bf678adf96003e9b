package site

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/site/searchdoc"
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

// sessionKey names the cache entry made of parts for a session whose
// content digest is dig: "" (no entry) when the build has no cache or the
// session's content is unknown, so it is made every time.
func (b *builder) sessionKey(dig string, parts ...string) string {
	if b.store == nil || dig == "" {
		return ""
	}
	return cache.Key(parts...)
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

// PageContext is what a session's page shows of the rest of the site.
func PageContext(s *Session) string {
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

// partText is how much text of a session's documents is prepared for the
// index at a time (see searchdoc.Prepare).
var partText = 8 << 20 // a variable for tests

// SearchSession prepares a session for the index, with the text the
// config includes.
func SearchSession(s *Session, body *transcript.Session, include map[string]bool) []*search.Prepared {
	day := 0
	if !s.Started.IsZero() {
		day = int(s.Started.Unix() / 86400)
	}
	info := search.Session{Title: s.Title, Project: s.Project.Name, Agent: s.Agent, Models: s.Models, Path: s.Path, Day: day}
	return searchdoc.Prepare(info, body, include, partText)
}
