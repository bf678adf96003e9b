package site

import (
	"bufio"
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

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Export writes the export of one session of file in format ("md",
// "json" or "html") to w, without building a site. The file is read as a build reads
// it, redacted unless the config turns redaction off. id chooses the
// session of a file that holds several. The warnings are about the file.
func Export(ctx context.Context, cfg *Config, file, id, format string, w io.Writer) ([]ingest.Warning, error) {
	write := htmlExport // not one of the site's exports: a page has its site
	var names []string
	for _, e := range exports() {
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
	root := ingest.Root{Name: filepath.ToSlash(filepath.Dir(file)), FS: ingest.DirFS(filepath.Dir(abs))}
	ss, warns := ingest.LoadFile(ctx, opts, root, filepath.Base(abs))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := choose(ss, file, id)
	if err != nil {
		return warns, err
	}
	bw := bufio.NewWriter(w) // an export is written in small pieces
	if err := write(bw, alone(cfg, body.Header()), body, nil); err != nil {
		return warns, err
	}
	return warns, bw.Flush()
}

// choose returns the session of file with the given id, or its only one.
func choose(ss []*transcript.Session, file, id string) (*transcript.Session, error) {
	var ids []string
	var chosen *transcript.Session
	for _, s := range ss {
		ids = append(ids, s.ID)
		if id == "" || s.ID == id {
			chosen = s
		}
	}
	switch {
	case len(ss) == 0:
		return nil, fmt.Errorf("%s: no session could be read from it", file)
	case id == "" && len(ids) > 1:
		return nil, fmt.Errorf("%s holds %d sessions: choose one with --session (%s)", file, len(ids), strings.Join(ids, ", "))
	case chosen == nil:
		return nil, fmt.Errorf("%s holds no session %q: it holds %s", file, id, strings.Join(ids, ", "))
	}
	return chosen, nil
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
func htmlExport(w io.Writer, s *Session, body *transcript.Session, _ *builder) error {
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
	pg.Turns = turnViews(pg, body)
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
