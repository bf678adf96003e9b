package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/sass"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/site/sink"
)

// holdBytes is how much of the files a cold build parses it keeps in
// memory whole rather than reading back from the cache to render: all of
// a small site (the cache round trip is ~6% of its CPU), a bounded part of
// a large one (about twice as much heap as file). A variable for tests.
var holdBytes int64 = 128 << 20

// themeDigest hashes everything besides a session that its page depends
// on: the theme, the config and the program.
func themeDigest(cfg *Config, chroma string) (string, error) {
	files, err := cache.HashFS(cfg.Theme, "templates", "assets")
	if err != nil {
		return "", err
	}
	conf, err := json.Marshal(struct {
		Title, BaseURL, LanguageCode string
		Params                       map[string]any
		Pricing                      Pricing
		Search                       search.Config
		Redact                       redact.Settings
		Outputs                      Outputs
	}{cfg.Title, cfg.BaseURL, cfg.LanguageCode, cfg.Params, cfg.Pricing, cfg.Search, cfg.Redact, cfg.Outputs})
	if err != nil {
		return "", err
	}
	return cache.Key("theme", cache.BuildID(), files, string(conf), chroma), nil
}

// startSass starts Dart Sass for the build if it can be found. A binary the
// config names must work; one found on its own may be missing or too old,
// and the build then uses the precompiled CSS.
func (b *builder) startSass() error {
	cfg := b.site.Config
	wd, _ := os.Getwd()
	bin, err := sass.Find(cfg.Sass.Binary, cfg.Dir, wd)
	if err == nil {
		if b.css, b.cssKey = b.compiledCSS(bin); b.css != "" {
			return nil // compiled by this Dart Sass before: no need to start it
		}
		b.sass, err = sass.Start(bin)
	}
	if err != nil && cfg.Sass.Binary != "" {
		return fmt.Errorf("sass.binary: %w", err)
	}
	b.sassErr = err
	return nil
}

// compiledCSS returns the theme's CSS as the Dart Sass at bin compiled it
// for an earlier build of the same theme and params, and the cache entry
// that holds it; "" when there is none. Starting Dart Sass costs a
// rebuild 0.1-0.15 CPU-s, as much as the rest of a rebuild with nothing
// changed. The binary is known by its path, size and time, which an
// upgrade changes.
func (b *builder) compiledCSS(bin string) (css, key string) {
	if b.store == nil {
		return "", ""
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", ""
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", ""
	}
	key = cache.Key("css", b.theme, real, strconv.FormatInt(fi.Size(), 10), strconv.FormatInt(fi.ModTime().UnixNano(), 10))
	data, _ := b.store.Get(key)
	return string(data), key
}

// checkPaths refuses a destination that holds the site's sources: the old
// site is deleted when the new one is swapped in.
func checkPaths(cfg *Config) error {
	paths := []string{cfg.Dir}
	for _, m := range cfg.Mounts {
		if m.Dir != "" {
			paths = append(paths, m.Dir)
		}
	}
	for i, p := range paths {
		if within(p, cfg.Destination) {
			return fmt.Errorf("destination %s would contain %s: choose a destination outside the site's sources", cfg.Destination, p)
		}
		// The next build would read the site as content.
		if i > 0 && within(cfg.Destination, p) {
			return fmt.Errorf("destination %s is inside the content folder %s: choose a destination outside it", cfg.Destination, p)
		}
	}
	return nil
}

// within reports whether the path p is dir or inside it.
func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

type builder struct {
	site        *Site
	tpl         map[string]*template.Template
	out         sink.Sink
	store       *cache.Store      // nil without a cache
	res         *ingest.Result    // what was read: the sessions' turns come back from it
	theme       string            // digest of the theme and config, and once the assets are written, of their names
	hashes      map[string]string // content hash of each source file
	fingerprint bool              // name CSS and JS by a hash of their content
	include     map[string]bool   // what the search index holds (search.include)
	memory      bool              // the site is built into memory again and again (serve)
	rendered    atomic.Int64
	sass        *sass.Compiler // nil without Dart Sass, or when css is cached
	sassErr     error          // why there is no Dart Sass
	css, cssKey string         // the theme's CSS as Dart Sass made it, cached, and its entry
	notices     []string
	warnings    []ingest.Warning // about sessions whose pages could not be made

	chroma   string       // the highlighting's stylesheet
	digs     []string     // each session's content digest; "" without a cache
	contexts []string     // each session's pageContext; "" without a cache
	listsKey string       // the sessions' key for list pages; "" without a cache
	units    []unit       // the sessions, in the units they are made in
	unitOf   []int        // each session's unit
	index    *searchIndex // nil when the site has none
}

func (b *builder) page(kind string, p *Page) error {
	html, err := b.render(kind, p)
	if err != nil {
		return err
	}
	return b.out.Write(pageFile(p.Path), html)
}

func (b *builder) render(kind string, p *Page) ([]byte, error) {
	var buf bytes.Buffer
	err := b.renderTo(&buf, kind, p)
	return buf.Bytes(), err
}

func (b *builder) renderTo(w io.Writer, kind string, p *Page) error {
	p.Site = b.site
	if err := b.tpl[kind].ExecuteTemplate(w, "baseof.html", p); err != nil {
		return fmt.Errorf("render %s page: %w", kind, err)
	}
	return nil
}

func pageFile(path string) string {
	if path == "" || strings.HasSuffix(path, "/") {
		return path + "index.html"
	}
	return path
}

// blob reads an image the readers put in the blob store.
func (b *builder) blob(key string) ([]byte, error) {
	if b.store == nil {
		return nil, fmt.Errorf("image %s: no blob store", key)
	}
	rc, err := b.store.OpenBlob(key)
	if err != nil {
		return nil, fmt.Errorf("image %s is no longer in the cache (run with --ignoreCache): %w", key, err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
