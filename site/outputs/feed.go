package outputs

import (
	"encoding/xml"
	"time"

	"github.com/transcriptsite/transcriptsite/site"
)

// feedEntries is how many of the newest sessions the feed lists: a feed
// says what is new, the site lists everything.
const feedEntries = 50

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	Title     string   `xml:"title"`
	Link      atomLink `xml:"link"`
	ID        string   `xml:"id"`
	Published string   `xml:"published,omitempty"`
	Updated   string   `xml:"updated"`
	Summary   string   `xml:"summary,omitempty"`
}

// feed is index.xml, an Atom feed of the newest sessions.
type feed struct{ site.Base }

// Finish writes index.xml.
func (feed) Finish(c site.Context) error {
	st := c.Site()
	return writeFeed(c, "", st.Config.Title, st.Sessions)
}

// atomFeed is an Atom feed.
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string      `xml:"title"`
	Sub     string      `xml:"subtitle,omitempty"`
	Links   []atomLink  `xml:"link"`
	ID      string      `xml:"id"`
	Updated string      `xml:"updated"`
	Author  string      `xml:"author>name"`
	Gen     string      `xml:"generator"`
	Entries []atomEntry `xml:"entry"`
}

// writeFeed writes dir+"index.xml", the Atom feed titled title of the
// newest of sessions (newest first), beside the page at dir.
func writeFeed(c site.Context, dir, title string, sessions []*site.Session) error {
	cfg := c.Site().Config
	base := cfg.BaseURL
	f := atomFeed{
		Title:  title,
		Links:  []atomLink{{Rel: "self", Type: "application/atom+xml", Href: site.Permalink(base, dir+"index.xml")}, {Rel: "alternate", Type: "text/html", Href: site.Permalink(base, dir)}},
		ID:     feedID(base, dir),
		Author: cfg.Title,
		Gen:    "transcriptsite",
	}
	f.Sub, _ = cfg.Params["description"].(string)
	var latest time.Time
	f.Entries, latest = feedEntriesOf(base, sessions)
	f.Updated = atomTime(latest)
	data, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return c.Write(dir+"index.xml", append([]byte(xml.Header), append(data, '\n')...))
}

// feedEntriesOf is the entries of the newest feedEntries of sessions, and
// when the last of them all was updated.
func feedEntriesOf(base string, sessions []*site.Session) (entries []atomEntry, latest time.Time) {
	i := 0
	for _, s := range sessions {
		if s.Volume > 1 {
			continue // its first volume stands for it
		}
		i++
		updated := s.Ended
		if updated.IsZero() {
			updated = s.Started
		}
		if updated.After(latest) {
			latest = updated
		}
		if i <= feedEntries {
			entries = append(entries, feedEntry(base, s, updated))
		}
	}
	return entries, latest
}

// feedEntry is the entry of session s, last updated then.
func feedEntry(base string, s *site.Session, updated time.Time) atomEntry {
	e := atomEntry{
		Title:   s.Title,
		Link:    atomLink{Rel: "alternate", Type: "text/html", Href: site.Permalink(base, s.Path)},
		ID:      feedID(base, s.Path),
		Updated: atomTime(updated),
		Summary: site.Summary(s.FirstPrompt(), 300),
	}
	if !s.Started.IsZero() {
		e.Published = atomTime(s.Started)
	}
	return e
}

// feedID is an entry's permanent id: its URL on a site with an absolute
// base URL, else a tag URI made of its path, which is as stable.
func feedID(base, path string) string {
	if site.Absolute(base) {
		return base + path
	}
	return "tag:transcriptsite.github.io,2026:" + path
}

func atomTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
}
