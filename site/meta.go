package site

import (
	"strings"

	"github.com/transcriptsite/transcriptsite/render"
)

// Description is what the page is about, for search engines and link
// previews: a session's first prompt, the site's description, a project's
// size.
func (p *Page) Description() string {
	switch p.Kind {
	case "session":
		return Summary(p.Session.FirstPrompt(), 200)
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
	if !Absolute(p.Site.Config.BaseURL) || p.Kind == "404" {
		return ""
	}
	return p.Permalink()
}

// Summary is the first n runes of text, on one line.
func Summary(text string, n int) string {
	return render.Truncate(n, strings.Join(strings.Fields(render.StripANSI(text)), " "))
}

// Asset links to a theme asset by its name in the theme ("css/theme.css").
func (p *Page) Asset(name string) string {
	if out, ok := p.Site.assets[name]; ok {
		return p.URL(out)
	}
	return p.URL(name)
}
