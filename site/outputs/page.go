package outputs

import (
	"fmt"
	"io"

	"github.com/transcriptsite/transcriptsite/site"
)

// sessionPage is a session's page. It comes from the cache when neither
// the session, nor what the page shows of other sessions, nor the theme
// has changed.
type sessionPage struct{ site.Base }

func (sessionPage) Session(c site.Context, j *site.Job) error {
	s := j.Session
	key := c.Key(j.Digest, "page", c.Theme(), j.Digest, site.PageContext(s))
	err := c.File(site.PageFile(s.Path), key, func(w io.Writer) error {
		body, err := j.Body()
		if err != nil {
			return err
		}
		pg := &site.Page{Kind: "session", Title: s.Title, Path: s.Path, Project: s.Project, Session: s, Site: c.Site()}
		pg.Turns = site.TurnViews(pg, body)
		return c.Render(w, "session", pg) // counted as rendered
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	return nil
}
