package site

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/redact"
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
	themeBase   string            // digest of the theme and config
	theme       string            // themeBase, and once the assets are written, their names
	hashes      map[string]string // content hash of each source file
	fingerprint bool              // name CSS and JS by a hash of their content
	memory      bool              // the site is built into memory again and again (serve)
	rendered    atomic.Int64
	mu          sync.Mutex // guards notices
	notices     []string
	warnings    []ingest.Warning // about sessions whose pages could not be made

	digs   []string // each session's content digest; "" without a cache
	units  []unit   // the sessions, in the units they are made in
	unitOf []int    // each session's unit
}

func (b *builder) renderTo(w io.Writer, kind string, p *Page) error {
	p.Site = b.site
	if err := b.tpl[kind].ExecuteTemplate(w, "baseof.html", p); err != nil {
		return fmt.Errorf("render %s page: %w", kind, err)
	}
	return nil
}

func PageFile(path string) string {
	if path == "" || strings.HasSuffix(path, "/") {
		return path + "index.html"
	}
	return path
}
