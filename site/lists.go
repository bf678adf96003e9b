package site

import "context"

// listPages are the pages that list sessions: the home page, and each
// project's; and 404.html, served for any page the site lacks.
type listPages struct{ siteOutput }

func (listPages) start(_ context.Context, b *builder) error {
	st := b.site
	if err := b.page("index", &Page{Kind: "home", Title: st.Config.Title, Path: ""}); err != nil {
		return err
	}
	if err := b.page("404", &Page{Kind: "404", Title: "Page not found", Path: "404.html"}); err != nil {
		return err
	}
	for _, p := range st.Projects {
		if err := b.page("project", &Page{Kind: "project", Title: p.Name, Path: p.Path, Project: p}); err != nil {
			return err
		}
	}
	return nil
}

// statsPage is stats/: where the time and the tokens of every session went.
type statsPage struct{ siteOutput }

func (statsPage) start(_ context.Context, b *builder) error {
	return b.page("stats", &Page{Kind: "stats", Title: "Stats", Path: "stats/"})
}
