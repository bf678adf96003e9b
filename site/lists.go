package site

import (
	"context"
	"io"

	"github.com/transcriptsite/transcriptsite/cache"
)

// listPages are the pages that list sessions: the home page, and each
// project's; and 404.html, served for any page the site lacks.
type listPages struct{ siteOutput }

func (listPages) start(_ context.Context, b *builder) error {
	st := b.site
	if err := b.listPage("index", &Page{Kind: "home", Title: st.Config.Title, Path: ""}); err != nil {
		return err
	}
	if err := b.listPage("404", &Page{Kind: "404", Title: "Page not found", Path: "404.html"}); err != nil {
		return err
	}
	for _, p := range st.Projects {
		if err := b.listPage("project", &Page{Kind: "project", Title: p.Name, Path: p.Path, Project: p}); err != nil {
			return err
		}
	}
	return nil
}

// statsPage is stats/: where the time and the tokens of every session went.
type statsPage struct{ siteOutput }

func (statsPage) start(_ context.Context, b *builder) error {
	return b.listPage("stats", &Page{Kind: "stats", Title: "Stats", Path: "stats/"})
}

// listPage writes a page made of every session's summary, from the cache
// when the sessions and the theme are those of an earlier build: at 1,000
// sessions, making them again was 45% of a rebuild with nothing changed.
func (b *builder) listPage(kind string, p *Page) error {
	key := ""
	if b.listsKey != "" {
		key = cache.Key("list", kind, p.Path, b.theme, b.listsKey)
	}
	return b.cachedFile(pageFile(p.Path), key, func(w io.Writer) error { return b.renderTo(w, kind, p) })
}

// sessionsKey names what the site's sessions show of themselves, in order:
// each one's content and the context its page shows (its path, project,
// neighbours); "" when a session's content is unknown. The summaries a
// list shows are made from the content, with the config and the program,
// which the theme digest holds.
func (b *builder) sessionsKey() string {
	parts := []string{"sessions"}
	for i, dig := range b.digs {
		if dig == "" {
			return ""
		}
		parts = append(parts, dig, b.contexts[i])
	}
	return cache.Key(parts...)
}
