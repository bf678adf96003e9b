package site

import (
	"cmp"
	"fmt"
	"io"

	"github.com/transcriptsite/transcriptsite/site/export"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// exportOutput is an export of each session, written beside its page:
// the file, and how it is made.
type exportOutput struct {
	base
	Format  string // as `transcriptsite export --format` names it
	File    string
	Label   string
	enabled func(Outputs) bool
	// write writes the export of s, whose body is body, to w in small
	// pieces. c is the build, whose images' files are beside it and whose
	// blob store holds large ones; nil for an export on its own.
	write func(w io.Writer, s *Session, body *transcript.Session, c outCtx) error
}

// The exports, in the order of the outputs table.
var (
	markdown   = exportOutput{Format: "md", File: "session.md", Label: "Markdown", enabled: func(o Outputs) bool { return o.Markdown }, write: markdownExport}
	jsonOutput = exportOutput{Format: "json", File: "session.json", Label: "JSON", enabled: func(o Outputs) bool { return o.JSON }, write: jsonExport}
)

func (e exportOutput) On(st *Site) bool { return e.enabled(st.Config.Outputs) }

// Session writes the export of a session. Like the page, an export comes
// from the cache when the session has not changed: making one costs as
// much as rendering the page. An export can be several times the size of
// its session, so it is streamed to its file, never held whole.
func (e exportOutput) Session(c outCtx, j *job) error {
	s := j.Session
	key := c.Key(j.Digest, "export", e.Format, c.Theme(), j.Digest, s.Title, s.Project.Name)
	err := c.File(s.Path+e.File, key, func(w io.Writer) error {
		body, err := j.Body()
		if err != nil {
			return err
		}
		return e.write(w, s, body, c)
	})
	if err != nil {
		return fmt.Errorf("%s: %s export: %w", s.Source, e.Label, err)
	}
	return nil
}

// exports are the export outputs, in the order of the outputs table.
func exports() []exportOutput {
	var out []exportOutput
	for _, make := range outputs {
		if e, ok := make().(exportOutput); ok {
			out = append(out, e)
		}
	}
	return out
}

func jsonExport(w io.Writer, _ *Session, body *transcript.Session, c outCtx) error {
	var get func(string) []byte
	var lost error // an image the blob store no longer has fails the export, as it fails the page
	if c != nil {
		get = func(key string) []byte {
			data, err := Blob(c, key)
			lost = cmp.Or(lost, err)
			return data
		}
	}
	err := export.JSON(w, body, get)
	return cmp.Or(err, lost)
}

func markdownExport(w io.Writer, s *Session, body *transcript.Session, c outCtx) error {
	o := export.Options{Title: s.Title, Project: s.Project.Name}
	if c != nil {
		o.Image = theme.ImageURL // the files written beside the page
	}
	return export.Markdown(w, body, o)
}

// ExportLink is a link to one of a session's exports.
type ExportLink struct {
	Label, URL string
}

// Exports links the exports of the page's session that the site writes.
func (p *Page) Exports() []ExportLink {
	if p.Inline != nil {
		return nil // a page on its own has nothing beside it
	}
	var out []ExportLink
	for _, e := range exports() {
		if p.Session != nil && e.On(p.Site) {
			out = append(out, ExportLink{e.Label, p.URL(p.Session.Path + e.File)})
		}
	}
	return out
}
