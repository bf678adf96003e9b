package outputs

import (
	"encoding/xml"
	"time"

	"github.com/transcriptsite/transcriptsite/site"
)

// sitemap is sitemap.xml, for search engines.
type sitemap struct{ site.Base }

// Finish writes sitemap.xml.
func (sitemap) Finish(c site.Context) error {
	st := c.Site()
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	base := st.Config.BaseURL
	urls := []url{{Loc: site.Permalink(base, "")}, {Loc: site.Permalink(base, "stats/")}}
	for _, p := range st.Projects {
		urls = append(urls, url{Loc: site.Permalink(base, p.Path), LastMod: day(p.Sessions[0].Ended)})
	}
	for _, s := range st.Sessions {
		urls = append(urls, url{Loc: site.Permalink(base, s.Path), LastMod: day(s.Ended)})
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
