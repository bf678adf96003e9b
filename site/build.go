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

	redactions []byte // the report BuildOptions.Redactions asks for
}

func (r *Report) String() string {
	redacted := ""
	if n := Sum(r.Redacted); n > 0 {
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
	// Memory is for a builder that builds into memory again and again
	// (serve): each build drops from the cache what the last wrote and no
	// longer uses, and keeps the files of the last site that are the same.
	Memory bool
	// Waiting, when set, is told when a build waits for another build of
	// the same destination or cache to end: what it waits for.
	Waiting func(what string)
	// Redactions, when set, is a file to write a report of what was
	// redacted where to (never the secrets), for a review before
	// publishing. It must be outside the destination.
	Redactions string
}

// Builder builds a site, once (build) or again and again (serve): what it
// caches makes the next build redo only what changed.
type Builder struct {
	cfg   *Config
	opts  BuildOptions
	store *store // nil when the site has no cache dir
	last  Files  // the last site BuildFiles made: its unchanged files are kept
}

// NewBuilder returns a builder of the site cfg configures.
func NewBuilder(cfg *Config, opts BuildOptions) (*Builder, error) {
	b := &Builder{cfg: cfg, opts: opts}
	if cfg.CacheDir != "" {
		st, err := openStore(cfg.CacheDir, !opts.IgnoreCache)
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
	if f := bd.opts.Redactions; f != "" {
		if err := checkRedactions(bd.cfg, f); err != nil {
			return nil, err
		}
	}
	out, err := newOutput(ctx, bd.cfg.Destination, bd.waiting("destination "+bd.cfg.Destination))
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
	if f := bd.opts.Redactions; f != "" {
		if err := os.WriteFile(f, rep.redactions, 0o600); err != nil {
			return nil, fmt.Errorf("--redactions: %w", err)
		}
	}
	return rep, nil
}

// waiting returns what to call when a build must wait for what.
func (bd *Builder) waiting(what string) func() {
	if bd.opts.Waiting == nil {
		return nil
	}
	return func() { bd.opts.Waiting(what) }
}

// BuildFiles builds the site into memory.
func (bd *Builder) BuildFiles(ctx context.Context) (Files, *Report, error) {
	out := &memOut{files: Files{}, prev: bd.last}
	rep, err := bd.build(ctx, out)
	if err != nil {
		return nil, nil, err
	}
	bd.last = out.files
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
		if err := bd.store.begin(ctx, bd.waiting("cache "+cfg.CacheDir)); err != nil {
			return nil, fmt.Errorf("cacheDir: %w", err)
		}
		defer bd.store.end()
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
	b := &builder{site: st, tpl: tpl, out: ctxSink{out, ctx}, store: bd.store, memory: bd.opts.Memory, res: res, hashes: res.Hashes, fingerprint: !bd.opts.Memory}
	if b.theme, err = themeDigest(cfg, chroma); err != nil {
		return nil, err
	}
	if err := b.startSass(); err != nil {
		return nil, err
	}
	if b.sass != nil {
		defer b.sass.Close()
	}
	var report []byte
	if bd.opts.Redactions != "" {
		// Before the pages are made, which release the turns it reads.
		if report, err = b.redactions(ctx); err != nil {
			return nil, err
		}
	}
	notices, err := b.build(ctx, chroma)
	if err != nil {
		return nil, err
	}
	rep := &Report{Sessions: len(st.Sessions), Files: res.Files, Warnings: append(res.Warnings, b.warnings...), Notices: notices,
		Redacted: total(sessions), Rendered: int(b.rendered.Load()), redactions: report}
	if bd.store != nil {
		if d := bd.store.report(); len(d) > 0 {
			rep.Notices = append(rep.Notices, damagedNotice(cfg.CacheDir, d))
		}
		rep.CacheHits, rep.CacheMisses = bd.store.hits, bd.store.misses
		bd.store.hits, bd.store.misses = 0, 0
		if bd.opts.GC {
			if rep.CacheRemoved, err = bd.store.gc(); err != nil {
				return nil, fmt.Errorf("cache gc: %w", err)
			}
		}
		if bd.opts.Memory {
			bd.store.trim()
		}
		bd.store.used = map[string]bool{}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// damagedNotice says which entries of the cache were found damaged.
func damagedNotice(dir string, damaged []string) string {
	shown := damaged[:min(3, len(damaged))]
	more := ""
	if len(damaged) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(damaged)-len(shown))
	}
	return fmt.Sprintf("build cache %s: %d damaged entries were dropped and made again (%s%s); "+
		"a cache that keeps being damaged points to a failing disk", dir, len(damaged), strings.Join(shown, "; "), more)
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

// sink is where a build writes the site: a directory swapped in at the
// end, or memory.
type sink interface {
	write(rel string, data []byte) error
	// create creates a file to write in pieces; Close ends it.
	create(rel string) (io.WriteCloser, error)
	// open reads a file written.
	open(rel string) (io.ReadCloser, error)
	// keep makes the file rel the previous site's, when that holds what
	// want sums up; false when it does not, or there is none.
	keep(rel string, want fileSum) bool
	// remove removes a file written.
	remove(rel string) error
}

// ctxSink is a sink whose writes fail once ctx is done: rendering one
// huge session takes minutes, and Ctrl-C must end a build at once.
type ctxSink struct {
	sink
	ctx context.Context
}

func (c ctxSink) write(rel string, data []byte) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return c.sink.write(rel, data)
}

func (c ctxSink) create(rel string) (io.WriteCloser, error) {
	w, err := c.sink.create(rel)
	if err != nil {
		return nil, err
	}
	return ctxWriter{w, c.ctx}, nil
}

type ctxWriter struct {
	io.WriteCloser
	ctx context.Context
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.WriteCloser.Write(p)
}

// stream writes the file at rel inside the site with fn. A file fn
// failed to write is removed, not left in part.
func stream(out sink, rel string, fn func(io.Writer) error) error {
	f, err := out.create(rel)
	if err != nil {
		return err
	}
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		out.remove(rel)
	}
	return err
}

// Files is a site built into memory, by slash path.
type Files map[string][]byte

type memOut struct {
	mu    sync.Mutex
	files Files
	prev  Files // the site before, whose files may be kept
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

// keep shares the previous site's file rel when it holds what want sums
// up: a site in memory is not held twice.
func (m *memOut) keep(rel string, want fileSum) bool {
	data, ok := m.prev[rel]
	if !ok || fileSum(sumOf(data)) != want {
		return false
	}
	return m.write(rel, data) == nil
}

func (m *memOut) remove(rel string) error {
	m.mu.Lock()
	delete(m.files, rel)
	m.mu.Unlock()
	return nil
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
	memory      bool              // the site is built into memory again and again (serve)
	rendered    atomic.Int64
	sass        *sass.Compiler // nil without Dart Sass
	sassErr     error          // why there is no Dart Sass
	notices     []string
	warnings    []ingest.Warning // about sessions whose pages could not be made
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
