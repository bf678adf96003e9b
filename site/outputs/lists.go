package outputs

import (
	"context"
	"io"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site"
)

// listPages are the pages that list sessions: the home page, and each
// project's; and 404.html, served for any page the site lacks.
type listPages struct{ site.Base }

func (listPages) Start(_ context.Context, c site.Context) error {
	st := c.Site()
	key := sessionsKey(c)
	if err := listPage(c, key, "index", &site.Page{Kind: "home", Title: st.Config.Title, Path: ""}); err != nil {
		return err
	}
	if err := listPage(c, key, "404", &site.Page{Kind: "404", Title: "Page not found", Path: "404.html"}); err != nil {
		return err
	}
	for _, p := range st.Projects {
		if err := listPage(c, key, "project", &site.Page{Kind: "project", Title: p.Name, Path: p.Path, Project: p}); err != nil {
			return err
		}
	}
	return nil
}

// statsPage is stats/: where the time and the tokens of every session went.
type statsPage struct{ site.Base }

func (statsPage) Start(_ context.Context, c site.Context) error {
	return listPage(c, sessionsKey(c), "stats", &site.Page{Kind: "stats", Title: "Stats", Path: "stats/"})
}

// listPage writes a page made of every session's summary, from the cache
// when the sessions and the theme are those of an earlier build: at 1,000
// sessions, making them again was 45% of a rebuild with nothing changed.
// sessions is the sessions' key; "" skips the cache.
func listPage(c site.Context, sessions, kind string, p *site.Page) error {
	key := ""
	if sessions != "" {
		key = cache.Key("list", kind, p.Path, c.Theme(), sessions)
	}
	return c.File(site.PageFile(p.Path), key, func(w io.Writer) error { return c.Render(w, kind, p) })
}

// sessionsKey names what the site's sessions show of themselves, in order:
// each one's content and the context its page shows (its path, project,
// neighbours); "" when a session's content is unknown. The summaries a
// list shows are made from the content, with the config and the program,
// which the theme digest holds.
func sessionsKey(c site.Context) string {
	parts := []string{"sessions"}
	for i, s := range c.Site().Sessions {
		dig := c.Digest(i)
		if dig == "" {
			return ""
		}
		parts = append(parts, dig, site.PageContext(s))
	}
	return cache.Key(parts...)
}
