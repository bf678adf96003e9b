package site

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/sass"
)

// holdBytes is how much of the files a cold build parses it keeps in
// memory whole rather than reading back from the cache to render: all of
// a small site (the cache round trip is ~6% of its CPU), a bounded part of
// a large one (about twice as much heap as file). A variable for tests.
var holdBytes int64 = 128 << 20

// Report says what a build did.
type Report struct {
	Sessions int
	Files    int
	Warnings []ingest.Warning // about session files
	Notices  []string         // about the site: what it could not do as configured
	Redacted map[string]int   // secrets replaced, by kind
	Elapsed  time.Duration

	Rendered                             int // session pages rendered, not taken from the cache
	CacheHits, CacheMisses, CacheRemoved int
}

func (r *Report) String() string {
	redacted := ""
	if n := sum(r.Redacted); n > 0 {
		redacted = ", " + render.Plural(n, "secret") + " redacted"
	}
	return fmt.Sprintf("%s from %s (%s%s) in %d ms", render.Plural(r.Sessions, "session"),
		render.Plural(r.Files, "file"), render.Plural(len(r.Warnings), "warning"), redacted, r.Elapsed.Milliseconds())
}

// Build reads the content, renders the site and swaps it into the
// destination, with the site's build cache. On error the destination is
// left as it was.
func Build(ctx context.Context, cfg *Config) (*Report, error) {
	b, err := NewBuilder(cfg, BuildOptions{})
	if err != nil {
		return nil, err
	}
	return b.Build(ctx)
}

// BuildOptions say how a builder uses its cache.
type BuildOptions struct {
	IgnoreCache bool // write the cache but do not read it (--ignoreCache)
	GC          bool // remove cache entries the build did not use (--gc)
	Memory      bool // keep the cache in memory too: for a builder that builds again and again
}

// Builder builds a site, once (build) or again and again (serve): what it
// caches makes the next build redo only what changed.
type Builder struct {
	cfg   *Config
	opts  BuildOptions
	store *store // nil when the site has no cache dir
}

// NewBuilder returns a builder of the site cfg configures.
func NewBuilder(cfg *Config, opts BuildOptions) (*Builder, error) {
	b := &Builder{cfg: cfg, opts: opts}
	if cfg.CacheDir != "" {
		st, err := openStore(cfg.CacheDir, !opts.IgnoreCache, opts.Memory)
		if err != nil {
			return nil, fmt.Errorf("cacheDir: %w", err)
		}
		b.store = st
	}
	return b, nil
}

// Build builds the site into its destination.
func (bd *Builder) Build(ctx context.Context) (*Report, error) {
	if err := checkPaths(bd.cfg); err != nil {
		return nil, err
	}
	out, err := newOutput(bd.cfg.Destination)
	if err != nil {
		return nil, err
	}
	rep, err := bd.build(ctx, out)
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		out.abort()
		return nil, err
	}
	return rep, nil
}

// BuildFiles builds the site into memory.
func (bd *Builder) BuildFiles(ctx context.Context) (Files, *Report, error) {
	out := &memOut{files: Files{}}
	rep, err := bd.build(ctx, out)
	if err != nil {
		return nil, nil, err
	}
	return out.files, rep, nil
}

func (bd *Builder) build(ctx context.Context, out sink) (*Report, error) {
	start := time.Now()
	cfg := bd.cfg
	tpl, err := loadTemplates(cfg.Theme)
	if err != nil {
		return nil, err
	}
	chroma, err := render.ChromaCSS(cfg.Highlight.Style, cfg.Highlight.DarkStyle)
	if err != nil {
		return nil, fmt.Errorf("highlight: %w", err)
	}
	opts, err := readOptions(cfg)
	if err != nil {
		return nil, err
	}
	if bd.store != nil {
		// Sessions keep only their summaries until their pages are made,
		// but for those of the first holdBytes of files parsed anew.
		opts.Cache, opts.Blobs, opts.Release, opts.Hold = bd.store, bd.store, true, holdBytes
	}
	res, err := ingest.LoadCached(ctx, opts, cfg.Content()...)
	if err != nil {
		return nil, err
	}
	sessions := cfg.selected(res.Sessions)
	st := newSite(cfg, sessions)
	// A site served from memory keeps its asset names, so a stylesheet that
	// changes leaves the pages as they were and is swapped in place.
	b := &builder{site: st, tpl: tpl, out: out, store: bd.store, res: res, hashes: res.Hashes, fingerprint: !bd.opts.Memory}
	if b.theme, err = themeDigest(cfg, chroma); err != nil {
		return nil, err
	}
	if err := b.startSass(); err != nil {
		return nil, err
	}
	if b.sass != nil {
		defer b.sass.Close()
	}
	notices, err := b.build(ctx, chroma)
	if err != nil {
		return nil, err
	}
	rep := &Report{Sessions: len(st.Sessions), Files: res.Files, Warnings: res.Warnings, Notices: notices,
		Redacted: total(sessions), Rendered: int(b.rendered.Load())}
	if bd.store != nil {
		rep.CacheHits, rep.CacheMisses = bd.store.hits, bd.store.misses
		bd.store.hits, bd.store.misses = 0, 0
		if bd.opts.GC {
			if rep.CacheRemoved, err = bd.store.gc(); err != nil {
				return nil, fmt.Errorf("cache gc: %w", err)
			}
		}
		bd.store.flush()
		bd.store.used = map[string]bool{}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// themeDigest hashes everything besides a session that its page depends
// on: the theme, the config and the program.
func themeDigest(cfg *Config, chroma string) (string, error) {
	files, err := hashFS(cfg.Theme, "templates", "assets")
	if err != nil {
		return "", err
	}
	conf, err := json.Marshal(struct {
		Title, BaseURL, LanguageCode string
		Params                       map[string]any
		Pricing                      Pricing
		Search                       map[string]bool
		Redact                       Redact
		Outputs                      Outputs
	}{cfg.Title, cfg.BaseURL, cfg.LanguageCode, cfg.Params, cfg.Pricing, cfg.Search, cfg.Redact, cfg.Outputs})
	if err != nil {
		return "", err
	}
	return ingest.Key("theme", ingest.BuildID(), files, string(conf), chroma), nil
}

// startSass starts Dart Sass for the build if it can be found. A binary the
// config names must work; one found on its own may be missing or too old,
// and the build then uses the precompiled CSS.
func (b *builder) startSass() error {
	cfg := b.site.Config
	wd, _ := os.Getwd()
	bin, err := sass.Find(cfg.Sass.Binary, cfg.Dir, wd)
	if err == nil {
		b.sass, err = sass.Start(bin)
	}
	if err != nil && cfg.Sass.Binary != "" {
		return fmt.Errorf("sass.binary: %w", err)
	}
	b.sassErr = err
	return nil
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
	for _, p := range paths {
		if r, err := filepath.Rel(cfg.Destination, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return fmt.Errorf("destination %s would contain %s: choose a destination outside the site's sources", cfg.Destination, p)
		}
	}
	return nil
}

// sink is where a build writes the site: a directory swapped in at the
// end, or memory.
type sink interface {
	write(rel string, data []byte) error
	// create creates a file to write in pieces; Close ends it.
	create(rel string) (io.WriteCloser, error)
	// open reads a file written.
	open(rel string) (io.ReadCloser, error)
	// local is the path on disk of the file rel, "" for a site in memory.
	local(rel string) (string, error)
	// link makes the file rel the file at the path src on disk: a second
	// link to it where the file system allows, else a copy.
	link(rel, src string) error
}

// stream writes the file at rel inside the site with fn.
func stream(out sink, rel string, fn func(io.Writer) error) error {
	f, err := out.create(rel)
	if err != nil {
		return err
	}
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Files is a site built into memory, by slash path.
type Files map[string][]byte

type memOut struct {
	mu    sync.Mutex
	files Files
}

func (m *memOut) write(rel string, data []byte) error {
	if err := inside(rel); err != nil {
		return err
	}
	m.mu.Lock()
	m.files[rel] = data
	m.mu.Unlock()
	return nil
}

func (m *memOut) create(rel string) (io.WriteCloser, error) {
	if err := inside(rel); err != nil {
		return nil, err
	}
	return &memFile{m: m, rel: rel}, nil
}

func (m *memOut) open(rel string) (io.ReadCloser, error) {
	m.mu.Lock()
	data, ok := m.files[rel]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("open %s: %w", rel, fs.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (m *memOut) local(string) (string, error) { return "", nil }

func (m *memOut) link(rel, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return m.write(rel, data)
}

// memFile is a file of a memOut, kept when it is closed.
type memFile struct {
	bytes.Buffer
	m   *memOut
	rel string
}

func (f *memFile) Close() error { return f.m.write(f.rel, f.Bytes()) }

type builder struct {
	site        *Site
	tpl         map[string]*template.Template
	out         sink
	store       *store            // nil without a cache
	res         *ingest.Result    // what was read: the sessions' turns come back from it
	theme       string            // digest of the theme and config
	hashes      map[string]string // content hash of each source file
	fingerprint bool              // name CSS and JS by a hash of their content
	rendered    atomic.Int64
	sass        *sass.Compiler // nil without Dart Sass
	sassErr     error          // why there is no Dart Sass
	notices     []string
}

func (b *builder) build(ctx context.Context, chroma string) ([]string, error) {
	st := b.site
	assets, notices, err := b.assets(chroma)
	if err != nil {
		return nil, err
	}
	st.assets = assets
	b.notices = append(b.notices, notices...)
	return b.notices, b.pages(ctx)
}

func (b *builder) pages(ctx context.Context) error {
	st := b.site
	if err := b.page("index", &Page{Kind: "home", Title: st.Config.Title, Path: ""}); err != nil {
		return err
	}
	if err := b.page("404", &Page{Kind: "404", Title: "Page not found", Path: "404.html"}); err != nil {
		return err
	}
	if err := b.page("stats", &Page{Kind: "stats", Title: "Stats", Path: "stats/"}); err != nil {
		return err
	}
	for _, p := range st.Projects {
		if err := b.page("project", &Page{Kind: "project", Title: p.Name, Path: p.Path, Project: p}); err != nil {
			return err
		}
	}
	index, err := b.sessions(ctx)
	if err != nil {
		return err
	}
	// The pages are made: what follows needs summaries only, and the
	// index's sort is the build's peak of memory.
	for _, s := range st.Sessions {
		if s.Kept == nil {
			s.Release()
		}
	}
	if st.Config.Search != nil {
		if err := index.write(); err != nil {
			return err
		}
		if err := b.page("search", &Page{Kind: "search", Title: "Search", Path: "search/"}); err != nil {
			return err
		}
	}
	if err := b.sessionsJSON(); err != nil {
		return err
	}
	if err := b.feed(); err != nil {
		return err
	}
	return b.sitemap()
}

func (b *builder) page(kind string, p *Page) error {
	html, err := b.render(kind, p)
	if err != nil {
		return err
	}
	return b.out.write(pageFile(p.Path), html)
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

// sessionEntry is one element of sessions.json.
type sessionEntry struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Project   string         `json:"project"`
	Format    string         `json:"format"`
	Source    string         `json:"source"`
	URL       string         `json:"url"`
	Started   time.Time      `json:"started,omitzero"`
	Ended     time.Time      `json:"ended,omitzero"`
	Messages  int            `json:"messages"`
	ToolCalls int            `json:"tool_calls"`
	Models    []string       `json:"models"`
	Warnings  []string       `json:"warnings"`
	Redacted  map[string]int `json:"redacted"` // secrets replaced, by kind
}

// sessionsJSON writes the machine-readable list of every session.
func (b *builder) sessionsJSON() error {
	list := make([]sessionEntry, 0, len(b.site.Sessions))
	for _, s := range b.site.Sessions {
		list = append(list, sessionEntry{
			ID: s.ID, Title: s.Title, Project: s.Project.Name, Format: s.Format, Source: s.Source,
			URL: s.Path, Started: s.Started, Ended: s.Ended, Messages: s.Stats.Messages,
			ToolCalls: s.Stats.ToolCalls, Models: nonNil(s.Models), Warnings: nonNil(s.Warnings),
			Redacted: nonNilCounts(s.Redacted),
		})
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return b.out.write(marker, append(data, '\n'))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (b *builder) sitemap() error {
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	base := b.site.Config.BaseURL
	urls := []url{{Loc: permalink(base, "")}, {Loc: permalink(base, "stats/")}}
	for _, p := range b.site.Projects {
		urls = append(urls, url{Loc: permalink(base, p.Path), LastMod: day(p.Sessions[0].Ended)})
	}
	for _, s := range b.site.Sessions {
		urls = append(urls, url{Loc: permalink(base, s.Path), LastMod: day(s.Ended)})
	}
	data, err := xml.MarshalIndent(struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []url    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: urls}, "", "  ")
	if err != nil {
		return err
	}
	return b.out.write("sitemap.xml", append([]byte(xml.Header), append(data, '\n')...))
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
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
