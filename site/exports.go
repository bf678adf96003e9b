package site

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/export"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Outputs say which exports are written beside each session's page.
type Outputs struct {
	Markdown bool // session.md
	JSON     bool // session.json
}

// outputs reads outputs.markdown and outputs.json; both are on by default.
func outputs(v *viper.Viper) (Outputs, error) {
	o := Outputs{Markdown: true, JSON: true}
	if raw := v.Get("outputs"); raw != nil {
		if _, ok := raw.(map[string]any); !ok {
			return o, fmt.Errorf("outputs: want a map such as {markdown: true, json: false}, got %v", raw)
		}
	}
	for key, dst := range map[string]*bool{"outputs.markdown": &o.Markdown, "outputs.json": &o.JSON} {
		if v.Get(key) == nil {
			continue
		}
		on, err := boolean(v, key)
		if err != nil {
			return o, err
		}
		*dst = on
	}
	return o, nil
}

// exportFormat is a kind of export: the file it is written to beside the
// page, and how it is made.
type exportFormat struct {
	Format string // as `transcriptsite export --format` names it
	File   string
	Label  string
	on     func(Outputs) bool
	// write writes the export to w in small pieces. b is the build, whose
	// images' files are beside it and whose blob store holds large ones;
	// nil for an export on its own.
	write func(w io.Writer, s *Session, b *builder) error
}

var exportFormats = []exportFormat{
	{"md", "session.md", "Markdown", func(o Outputs) bool { return o.Markdown }, markdownExport},
	{"json", "session.json", "JSON", func(o Outputs) bool { return o.JSON }, func(w io.Writer, s *Session, b *builder) error {
		var blob func(string) []byte
		var lost error // an image the blob store no longer has fails the export, as it fails the page
		if b != nil {
			blob = func(key string) []byte {
				data, err := b.blob(key)
				lost = cmp.Or(lost, err)
				return data
			}
		}
		err := export.JSON(w, s.Session, blob)
		return cmp.Or(err, lost)
	}},
}

func markdownExport(w io.Writer, s *Session, b *builder) error {
	o := export.Options{Title: s.Title, Project: s.Project.Name}
	if b != nil {
		o.Image = imageURL // the files written beside the page
	}
	return export.Markdown(w, s.Session, o)
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
	for _, e := range exportFormats {
		if p.Session != nil && e.on(p.Site.Config.Outputs) {
			out = append(out, ExportLink{e.Label, p.URL(p.Session.Path + e.File)})
		}
	}
	return out
}

// exports writes the exports of s beside its page. Like the page, an
// export comes from the cache when the session has not changed: making one
// costs as much as rendering the page. An export can be several times the
// size of its session, so it is streamed to its file, never held whole.
func (b *builder) exports(s *Session, dig string, full func() (*Session, error)) error {
	for _, e := range exportFormats {
		if !e.on(b.site.Config.Outputs) {
			continue
		}
		key := b.sessionKey(dig, "export", e.Format, b.theme, dig, s.Title, s.Project.Name)
		err := b.cachedFile(s.Path+e.File, key, func(w io.Writer) error {
			fs, err := full()
			if err != nil {
				return err
			}
			return e.write(w, fs, b)
		})
		if err != nil {
			return fmt.Errorf("%s: %s export: %w", s.Source, e.Label, err)
		}
	}
	return nil
}

// cachedFile writes the file rel of the site: from the cache entry key
// when there is a sound one, else as make writes it, then given to the
// cache once it is whole, so a cache that cannot be written never fails
// the file. A session's page or export can be hundreds of megabytes and
// is never held whole. key "" skips the cache.
func (b *builder) cachedFile(rel, key string, make func(io.Writer) error) error {
	if key != "" && b.fromCache(rel, key) {
		return nil
	}
	if err := stream(b.out, rel, make); err != nil {
		return err
	}
	if key != "" {
		b.toCache(rel, key)
	}
	return nil
}

// toCache gives the file rel of the site to the cache as the entry key: a
// copy, so that neither can change the other.
func (b *builder) toCache(rel, key string) {
	b.store.Write(key, func(w io.Writer) error {
		f, err := b.out.open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}

// fromCache writes the file rel of the site from the cache entry key, and
// reports whether it did: false when there is no such entry or it proved
// damaged (the store then drops it). The previous site's file is kept
// when it holds what the entry does; else the entry is copied, checked as
// it is.
func (b *builder) fromCache(rel, key string) bool {
	if want, ok := b.store.entry(key); ok && b.out.keep(rel, want) {
		b.store.count(true)
		return true
	}
	r, ok := b.store.Open(key)
	if !ok {
		return false
	}
	defer r.Close()
	return stream(b.out, rel, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	}) == nil
}

// Export writes the export of one session of file in format ("md",
// "json" or "html") to w, without building a site. The file is read as a build reads
// it, redacted unless the config turns redaction off. id chooses the
// session of a file that holds several. The warnings are about the file.
func Export(ctx context.Context, cfg *Config, file, id, format string, w io.Writer) ([]ingest.Warning, error) {
	write := htmlExport // not one of the site's exports: a page has its site
	var names []string
	for _, e := range exportFormats {
		names = append(names, e.Format)
		if e.Format == format {
			write = e.write
		}
	}
	if format != "html" && !slices.Contains(names, format) {
		return nil, fmt.Errorf("format %q: want one of %s, html", format, strings.Join(names, ", "))
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	switch fi, err := os.Stat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file", file)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder: export reads one session file", file)
	}
	opts, err := readOptions(cfg)
	if err != nil {
		return nil, err
	}
	// The session's source, and warnings, name the file as it was given.
	root := ingest.Root{Name: filepath.ToSlash(filepath.Dir(file)), FS: oneFile{ingest.DirFS(filepath.Dir(abs)), filepath.Base(abs)}}
	res, err := ingest.LoadCached(ctx, opts, root)
	if err != nil {
		return nil, err
	}
	var ids []string
	var chosen *transcript.Session
	for _, s := range res.Sessions {
		ids = append(ids, s.ID)
		if id == "" || s.ID == id {
			chosen = s
		}
	}
	switch {
	case len(res.Sessions) == 0:
		return res.Warnings, fmt.Errorf("%s: no session could be read from it", file)
	case id == "" && len(ids) > 1:
		return res.Warnings, fmt.Errorf("%s holds %d sessions: choose one with --session (%s)", file, len(ids), strings.Join(ids, ", "))
	case chosen == nil:
		return res.Warnings, fmt.Errorf("%s holds no session %q: it holds %s", file, id, strings.Join(ids, ", "))
	}
	// The site gives the session its title and project, as on its page.
	own := *cfg
	own.ownSessions()
	s := newSite(&own, []*transcript.Session{chosen}).Sessions[0]
	bw := bufio.NewWriter(w) // an export is written in small pieces
	if err := write(bw, s, nil); err != nil {
		return res.Warnings, err
	}
	return res.Warnings, bw.Flush()
}

// oneFile is a directory that lists only one of its files, so reading it
// reads that file alone, while a reader may still open the files beside it
// (a database's -wal).
type oneFile struct {
	fs.FS
	name string
}

func (o oneFile) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return fs.ReadDir(o.FS, name)
	}
	fi, err := fs.Stat(o.FS, o.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(fi)}, nil
}

// Inline is what a page that stands alone holds instead of links: its
// stylesheets, and a Content-Security-Policy that allows them by their
// hashes and nothing else but images in data: URLs.
type Inline struct {
	CSP    string
	Styles []template.CSS
}

// htmlExport writes a session's page as one file that works offline:
// the site's page, its stylesheets inlined, its images as data: URLs,
// no script, and no link to the rest of the site.
func htmlExport(w io.Writer, s *Session, _ *builder) error {
	cfg := s.site.Config
	tpls, err := loadTemplates(cfg.Theme)
	if err != nil {
		return err
	}
	tpl := tpls["session"].Funcs(template.FuncMap{"imageURL": dataURL})
	theme, err := fs.ReadFile(cfg.Theme, precompiled)
	if err != nil {
		return err
	}
	chroma, err := render.ChromaCSS(cfg.Highlight.Style, cfg.Highlight.DarkStyle)
	if err != nil {
		return err
	}
	in := &Inline{CSP: "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; style-src"}
	for _, css := range []string{string(theme), chroma} {
		sum := sha256.Sum256([]byte(css))
		in.CSP += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		in.Styles = append(in.Styles, template.CSS(css)) // the theme's own files: trusted
	}
	pg := &Page{Kind: "session", Title: s.Title, Project: s.Project, Session: s, Site: s.site, Inline: in}
	pg.Turns = turnViews(pg)
	return tpl.ExecuteTemplate(w, "baseof.html", pg)
}

// dataURL is an image as a data: URL, for a page that holds its images;
// "" for what is not a picture the page can show.
func dataURL(img *transcript.Image) template.URL {
	if imageURL(img) == "" || len(img.Data) == 0 {
		return ""
	}
	return template.URL("data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
}
