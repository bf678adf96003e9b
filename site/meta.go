package site

import (
	"github.com/transcriptsite/transcriptsite/render"
)

// Description is what the page is about, for search engines and link
// previews: a session's first prompt, the site's description, a project's
// size.
func (p *Page) Description() string {
	switch p.Kind {
	case "session":
		return summary(p.Session.FirstPrompt(), 200)
	case "project":
		return render.Plural(len(p.Project.Sessions), "session") + " in " + p.Project.Name
	case "stats":
		return "Sessions per day, tokens and estimated cost, tool calls and errors of " + render.Plural(p.Site.Stats.Sessions, "session")
	case "home":
		d, _ := p.Site.Config.Params["description"].(string)
		return d
	}
	return ""
}

// Canonical is the page's absolute URL, or "" when the site has no
// absolute base URL (a link preview needs one) or the page has no place of
// its own (404.html is served at any path).
func (p *Page) Canonical() string {
	if !absolute(p.Site.Config.BaseURL) || p.Kind == "404" {
		return ""
	}
	return p.Permalink()
}
