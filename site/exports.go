package site

import (
	"cmp"
	"fmt"
	"github.com/transcriptsite/transcriptsite/site/sink"
	"io"

	"github.com/transcriptsite/transcriptsite/site/export"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Outputs say which exports are written beside each session's page:
// Markdown unless the config turns it off, JSON when it turns it on. The
// JSON is for programs, which `transcriptsite export --format json` serves
// one file at a time; beside every page it was the site's biggest output
// (half its bytes on real Claude Code sessions, images again in base64)
// and 14% of its build's CPU.
type Outputs struct {
	Markdown bool `config:"markdown"` // session.md
	JSON     bool `config:"json"`     // session.json
}

// exportOutput is an export of each session, written beside its page:
// the file, and how it is made.
type exportOutput struct {
	siteOutput
	Format  string // as `transcriptsite export --format` names it
	File    string
	Label   string
	enabled func(Outputs) bool
	// write writes the export of s, whose body is body, to w in small
	// pieces. b is the build, whose images' files are beside it and whose
	// blob store holds large ones; nil for an export on its own.
	write func(w io.Writer, s *Session, body *transcript.Session, b *builder) error
}

func (e exportOutput) on(cfg *Config) bool { return e.enabled(cfg.Outputs) }

// session writes the export of a session. Like the page, an export comes
// from the cache when the session has not changed: making one costs as
// much as rendering the page. An export can be several times the size of
// its session, so it is streamed to its file, never held whole.
func (e exportOutput) session(b *builder, j *job) error {
	s := j.s
	key := b.sessionKey(j.dig, "export", e.Format, b.theme, j.dig, s.Title, s.Project.Name)
	err := b.cachedFile(s.Path+e.File, key, func(w io.Writer) error {
		body, err := j.body()
		if err != nil {
			return err
		}
		return e.write(w, s, body, b)
	})
	if err != nil {
		return fmt.Errorf("%s: %s export: %w", s.Source, e.Label, err)
	}
	return nil
}

// exports are the export outputs, in the order of the outputs table.
func exports() []exportOutput {
	var out []exportOutput
	for _, o := range outputs {
		if e, ok := o.(exportOutput); ok {
			out = append(out, e)
		}
	}
	return out
}

func jsonExport(w io.Writer, _ *Session, body *transcript.Session, b *builder) error {
	var blob func(string) []byte
	var lost error // an image the blob store no longer has fails the export, as it fails the page
	if b != nil {
		blob = func(key string) []byte {
			data, err := b.blob(key)
			lost = cmp.Or(lost, err)
			return data
		}
	}
	err := export.JSON(w, body, blob)
	return cmp.Or(err, lost)
}

func markdownExport(w io.Writer, s *Session, body *transcript.Session, b *builder) error {
	o := export.Options{Title: s.Title, Project: s.Project.Name}
	if b != nil {
		o.Image = imageURL // the files written beside the page
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
		if p.Session != nil && e.on(p.Site.Config) {
			out = append(out, ExportLink{e.Label, p.URL(p.Session.Path + e.File)})
		}
	}
	return out
}

// cachedFile writes the file rel of the site: from the cache entry key
// when there is a sound one, else as make writes it, given to the cache
// as it is written, so a cache that cannot be written never fails the
// file. A session's page or export can be hundreds of megabytes and is
// never held whole. key "" skips the cache.
func (b *builder) cachedFile(rel, key string, make func(io.Writer) error) error {
	if key == "" {
		return sink.Stream(b.out, rel, make)
	}
	if b.fromCache(rel, key) {
		return nil
	}
	err := sink.Stream(b.out, rel, func(w io.Writer) error { return b.store.Tee(key, w, make) })
	if sum, ok := b.store.Made(key); ok && err == nil {
		b.out.Made(rel, sum)
	}
	return err
}

// fromCache writes the file rel of the site from the cache entry key, and
// reports whether it did: false when there is no such entry or it proved
// damaged (the store then drops it). The previous site's file is kept
// when it holds what the entry does; else the entry is copied, checked as
// it is.
func (b *builder) fromCache(rel, key string) bool {
	want, ok := b.store.Entry(key)
	if ok && b.out.Keep(rel, want) {
		b.store.Count(true)
		return true
	}
	r, ok := b.store.Open(key)
	if !ok {
		return false
	}
	defer r.Close()
	err := sink.Stream(b.out, rel, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
	if err == nil {
		b.out.Made(rel, want)
	}
	return err == nil
}
