package site

import (
	"encoding/json"
	"encoding/xml"
	"time"

	"github.com/transcriptsite/transcriptsite/site/sink"
)

// manifest is sessions.json, the machine-readable list of every session,
// which also marks a folder as a site transcriptsite built.
type manifest struct{ base }

// sitemap is sitemap.xml, for search engines.
type sitemap struct{ base }

// sessionEntry is one element of sessions.json.
type sessionEntry struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Project   string         `json:"project"`
	Format    string         `json:"format"`
	Source    string         `json:"source"`
	URL       string         `json:"url"`
	Started   time.Time      `json:"started,omitzero"`
	Ended     time.Time      `json:"ended,omitzero"`
	Messages  int            `json:"messages"`
	ToolCalls int            `json:"tool_calls"`
	Models    []string       `json:"models"`
	Warnings  []string       `json:"warnings"`
	Redacted  map[string]int `json:"redacted"`         // secrets replaced, by kind
	Volume    int            `json:"volume,omitempty"` // its number among the volumes of a session read in volumes
}

// Finish writes the machine-readable list of every session.
func (manifest) Finish(c outCtx) error {
	st := c.Site()
	list := make([]sessionEntry, 0, len(st.Sessions))
	for _, s := range st.Sessions {
		list = append(list, sessionEntry{
			ID: s.ID, Title: s.Title, Project: s.Project.Name, Format: s.Format, Source: s.Source,
			URL: s.Path, Started: s.Started, Ended: s.Ended, Messages: s.Stats.Messages,
			ToolCalls: s.Stats.ToolCalls, Models: nonNil(s.Models), Warnings: nonNil(s.Warnings),
			Redacted: nonNilCounts(s.Redacted), Volume: s.Volume,
		})
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return c.Write(sink.Marker, append(data, '\n'))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Finish writes sitemap.xml.
func (sitemap) Finish(c outCtx) error {
	st := c.Site()
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	base := st.Config.BaseURL
	urls := []url{{Loc: permalink(base, "")}, {Loc: permalink(base, "stats/")}}
	for _, p := range st.Projects {
		urls = append(urls, url{Loc: permalink(base, p.Path), LastMod: day(p.Sessions[0].Ended)})
	}
	for _, s := range st.Sessions {
		urls = append(urls, url{Loc: permalink(base, s.Path), LastMod: day(s.Ended)})
	}
	data, err := xml.MarshalIndent(struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []url    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: urls}, "", "  ")
	if err != nil {
		return err
	}
	return c.Write("sitemap.xml", append([]byte(xml.Header), append(data, '\n')...))
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}
