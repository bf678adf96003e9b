package site

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/transcriptsite/transcriptsite/ingest"
)

// Shared is one session made ready to share on its own: its page as one
// file and its Markdown, written where the site puts them.
type Shared struct {
	ID, Title string
	Path      string         // the folder of its page, as the site has it: sessions/<project>/<…>/
	Messages  int            // as its page numbers them
	Redacted  map[string]int // the secrets replaced, by kind
	Page      string         // the page's file, relative to the folder written to: Path + "index.html"
	Markdown  string         // the Markdown's: Path + "session.md"
}

// fragmentScript scrolls a shared page to the message its address names.
// A gist preview service (gisthost.github.io, gistpreview.github.io)
// fetches the page from GitHub's API and writes it into its own with
// document.write, and never closes the document: the browser looked for
// #m-12 before the message was there, and will not look again. Going to
// the fragment once the page is written scrolls there and marks the
// message :target, as following a link to it would; where the browser
// already did, it changes nothing. location.replace adds no history entry.
const fragmentScript = `if (location.hash.length > 1) location.replace(location.hash);`

// Share writes the session of file whose id is id (or its only one) under
// dir, where the site would put them: its page as one file, as `export
// --format html` writes it but able to be shown inside another page (see
// fragmentScript), and its Markdown, as the site's exports are. The file is
// read as a build reads it, redacted unless the config turns redaction
// off. The warnings are about the file.
func Share(ctx context.Context, cfg *Config, file, id, dir string) (*Shared, []ingest.Warning, error) {
	body, warns, err := readSession(ctx, cfg, file, id)
	if err != nil {
		return nil, warns, err
	}
	// Where the file is on this machine (a home folder, a user name) is
	// not the reader's business: the page names the file alone.
	body.Source = path.Base(body.Source)
	for i, src := range body.Sources {
		body.Sources[i] = path.Base(src)
	}
	s := alone(cfg, body.Header())
	var md exportOutput
	for _, e := range exports() {
		if e.Format == "md" {
			md = e
		}
	}
	sh := &Shared{ID: s.ID, Title: s.Title, Path: s.Path, Messages: s.Stats.Messages, Redacted: NonNilCounts(s.Redacted),
		Page: s.Path + "index.html", Markdown: s.Path + md.File}
	if !filepath.IsLocal(filepath.FromSlash(s.Path)) { // the site's paths are slugs: never so
		return nil, warns, fmt.Errorf("%s: the page's path %q is not inside the site", file, s.Path)
	}
	page := func(w io.Writer) error { return standalone(w, s, body, fragmentScript) }
	if err := writeFile(filepath.Join(dir, filepath.FromSlash(sh.Page)), page); err != nil {
		return nil, warns, err
	}
	err = writeFile(filepath.Join(dir, filepath.FromSlash(sh.Markdown)), func(w io.Writer) error { return md.write(w, s, body, nil) })
	if err != nil {
		return nil, warns, err
	}
	return sh, warns, nil
}

// writeFile writes the file at path, and the folders it is in, in small
// pieces.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
