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
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Export writes the export of one session of file in format ("md",
// "json" or "html") to w, without building a site. The file is read as a build reads
// it, redacted unless the config turns redaction off. id chooses the
// session of a file that holds several. The warnings are about the file.
func Export(ctx context.Context, cfg *Config, file, id, format string, w io.Writer) ([]ingest.Warning, error) {
	write, err := exportWriter(format)
	if err != nil {
		return nil, err
	}
	body, warns, err := readSession(ctx, cfg, file, id)
	if err != nil {
		return warns, err
	}
	bw := bufio.NewWriter(w) // an export is written in small pieces
	if err := write(bw, alone(cfg, body.Header()), body, nil); err != nil {
		return warns, err
	}
	return warns, bw.Flush()
}

// exportWriter is how the export of format is written.
func exportWriter(format string) (func(io.Writer, *Session, *transcript.Session, outCtx) error, error) {
	var names []string
	for _, e := range exports() {
		names = append(names, e.Format)
		if e.Format == format {
			return e.write, nil
		}
	}
	if format == "html" {
		return htmlExport, nil // not one of the site's exports: a page has its site
	}
	return nil, fmt.Errorf("format %q: want one of %s, html", format, strings.Join(names, ", "))
}

// readSession reads the session of file whose id is id, or its only one,
// as a build reads it: redacted unless the config turns redaction off.
// The warnings are about the file.
func readSession(ctx context.Context, cfg *Config, file, id string) (*transcript.Session, []ingest.Warning, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, nil, err
	}
	switch fi, err := os.Stat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("%s: no such file", file)
	case err != nil:
		return nil, nil, err
	case fi.IsDir():
		return nil, nil, fmt.Errorf("%s is a folder: give one session file in it", file)
	}
	opts, err := readOptions(cfg)
	if err != nil {
		return nil, nil, err
	}
	// The session's source, and warnings, name the file as it was given.
	root := ingest.Root{Name: filepath.ToSlash(filepath.Dir(file)), FS: ingest.DirFS(filepath.Dir(abs))}
	ss, warns := ingest.LoadFile(ctx, opts, root, filepath.Base(abs))
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	body, err := choose(ss, file, id)
	return body, warns, err
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
	CSP     string
	Styles  []template.CSS
	Scripts []template.JS // run at the end of the body
}

// hashSource is the Content-Security-Policy source that allows an inline
// style or script whose text is text.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// htmlExport writes a session's page as one file that works offline:
// the site's page, its stylesheets inlined, its images as data: URLs,
// no script, and no link to the rest of the site.
func htmlExport(w io.Writer, s *Session, body *transcript.Session, _ outCtx) error {
	return standalone(w, s, body)
}

// standalone writes a session's page as one file, as htmlExport does,
// with scripts of the theme's own, which its policy allows by their
// hashes.
func standalone(w io.Writer, s *Session, body *transcript.Session, scripts ...string) error {
	cfg := s.site.Config
	tpls, err := theme.Load(cfg.Theme)
	if err != nil {
		return err
	}
	tpl := tpls["session"].Funcs(template.FuncMap{"imageURL": dataURL})
	theme, err := fs.ReadFile(cfg.Theme, theme.PrecompiledCSS)
	if err != nil {
		return err
	}
	chroma, err := render.ChromaCSS(cfg.Highlight.Style, cfg.Highlight.DarkStyle)
	if err != nil {
		return err
	}
	in := &Inline{CSP: "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; style-src"}
	for _, css := range []string{string(theme), chroma} {
		in.CSP += " " + hashSource(css)
		in.Styles = append(in.Styles, template.CSS(css)) // the theme's own files: trusted
	}
	if len(scripts) > 0 {
		in.CSP += "; script-src"
		for _, js := range scripts {
			in.CSP += " " + hashSource(js)
			in.Scripts = append(in.Scripts, template.JS(js)) // ours, not the session's
		}
	}
	pg := &Page{Kind: "session", Title: s.Title, Project: s.Project, Session: s, Site: s.site, Inline: in}
	pg.Turns = TurnViews(pg, body)
	return tpl.ExecuteTemplate(w, "baseof.html", pg)
}

// dataURL is an image as a data: URL, for a page that holds its images;
// "" for what is not a picture the page can show.
func dataURL(img *transcript.Image) template.URL {
	if theme.ImageURL(img) == "" || len(img.Data) == 0 {
		return ""
	}
	return template.URL("data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
}
