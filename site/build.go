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
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/parallel"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/sass"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

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
		redacted = fmt.Sprintf(", %d secrets redacted", n)
	}
	return fmt.Sprintf("%d sessions from %d files (%d warnings%s) in %d ms",
		r.Sessions, r.Files, len(r.Warnings), redacted, r.Elapsed.Milliseconds())
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
		// Sessions keep only their summaries until their pages are made.
		opts.Cache, opts.Blobs, opts.Release = bd.store, bd.store, true
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

// sessions renders every session page and prepares it for the search
// index, on every core, and returns the index. Sessions read together are
// rendered together, their turns loaded once for all of them and only if
// the cache lacks something one of them needs.
func (b *builder) sessions(ctx context.Context) (*searchIndex, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(b.site.Sessions)
	prepared := make([]*search.Prepared, n)
	failed := make([]error, n)
	digs := make([]string, n)
	if b.store != nil {
		for i, s := range b.site.Sessions {
			digs[i] = digest(s, b.hashes)
		}
	}
	var index *searchIndex
	if b.site.Config.Search != nil {
		var err error
		if index, err = b.newSearchIndex(digs); err != nil {
			return nil, err
		}
	}
	units := b.units()
	unitOf := make([]int, n)
	for u, un := range units {
		for _, i := range un.sessions {
			unitOf[i] = u
		}
	}
	work := make(chan int)
	done := make(chan int, n)
	var wg sync.WaitGroup
	for range workers() {
		wg.Go(func() {
			for u := range work {
				load := b.loader(ctx, units[u])
				for _, i := range units[u].sessions {
					s, dig := b.site.Sessions[i], digs[i]
					full := func() (*Session, error) { return load(s) }
					if index.building() {
						prepared[i] = b.prepare(s, dig, full)
					}
					failed[i] = b.session(s, dig, full)
					done <- i
				}
			}
		})
	}
	go func() {
		defer close(work)
		// The biggest first; a session's size is its tool calls and
		// messages, which is what its page costs.
		order := parallel.LargestFirst(len(units), func(u int) int64 {
			var size int64
			for _, i := range units[u].sessions {
				st := b.site.Sessions[i].Stats
				size += int64(st.Messages + st.ToolCalls)
			}
			return size
		})
		for _, u := range order {
			select {
			case work <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	// Sessions join the index in the site's order, as soon as they are
	// ready. One ready before its turn waits in the cache, where prepare
	// put it, so that the postings of all are never held at once.
	ready := make([]bool, n)
	next := 0
	for i := range done {
		ready[i] = true
		if i != next && prepared[i] != nil && b.store != nil && digs[i] != "" {
			prepared[i] = nil
		}
		for ; next < n && ready[next]; next++ {
			if !index.building() {
				continue
			}
			p := prepared[next]
			if p == nil {
				p = b.prepare(b.site.Sessions[next], digs[next], func() (*Session, error) {
					return b.loader(ctx, units[unitOf[next]])(b.site.Sessions[next])
				})
			}
			if p != nil {
				index.Append(p)
			}
			prepared[next] = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// One session that the theme cannot render must not sink the others;
	// when none renders, the theme is broken and the build fails.
	var errs []error
	for i, err := range failed {
		if err == nil {
			continue
		}
		errs = append(errs, err)
		s := b.site.Sessions[i]
		b.notices = append(b.notices, fmt.Sprintf("%s: the page of this session could not be rendered: %v", s.Source, err))
		if err := b.fallback(s, err); err != nil {
			return nil, err
		}
	}
	if len(errs) > 0 && len(errs) == len(failed) {
		return nil, errs[0]
	}
	return index, nil // nil when the site has no search
}

// workers is how many sessions render at once: one more than the cores,
// so that a core whose worker waits on the disk (creating a file is slow
// on some) has another to run.
func workers() int { return runtime.GOMAXPROCS(0) + 1 }

// fallbackPage stands in for a session page the theme failed to render,
// so links to it still lead somewhere that says why.
var fallbackPage = template.Must(template.New("").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<title>{{.Title}}</title></head><body><h1>{{.Title}}</h1>
<p>This session's page could not be rendered: {{.Err}}</p><p>Its source is <code>{{.Source}}</code>.</p></body></html>
`))

func (b *builder) fallback(s *Session, err error) error {
	var buf bytes.Buffer
	if err := fallbackPage.Execute(&buf, map[string]any{"Title": s.Title, "Err": err.Error(), "Source": s.Source}); err != nil {
		return err
	}
	return b.out.write(s.Path+"index.html", buf.Bytes())
}

func (b *builder) session(s *Session, dig string, full func() (*Session, error)) error {
	if err := b.sides(s, dig, full); err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	if err := b.exports(s, dig, full); err != nil {
		return err
	}
	// The page comes from the cache when neither the session, nor what the
	// page shows of other sessions, nor the theme has changed.
	var key string
	if b.store != nil && dig != "" {
		key = ingest.Key("page", b.theme, dig, pageContext(s))
	}
	err := b.cachedFile(pageFile(s.Path), key, func(w io.Writer) error {
		fs, err := full()
		if err != nil {
			return err
		}
		pg := &Page{Kind: "session", Title: fs.Title, Path: fs.Path, Project: fs.Project, Session: fs, Site: b.site}
		pg.Turns = turnViews(pg)
		b.rendered.Add(1)
		return b.renderTo(w, "session", pg)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	return nil
}

// sides writes the files beside a session's page: images, and outputs too
// long to show whole. Both are named by their content, so a repeated one is
// written once and the cache keeps it by its name; the cache keeps the
// names of a session's files too, so that a warm build needs no turns.
func (b *builder) sides(s *Session, dig string, full func() (*Session, error)) error {
	var listKey string
	if b.store != nil && dig != "" {
		listKey = ingest.Key("sides", b.theme, dig) // the program decides which outputs are too long
	}
	var names []string
	var data map[string]func() ([]byte, error)
	if list, ok := b.getCached(listKey); ok {
		names = strings.Fields(string(list))
	} else {
		fs, err := full()
		if err != nil {
			return err
		}
		names, data = b.sideFiles(fs)
		if listKey != "" {
			b.store.Put(listKey, []byte(strings.Join(names, "\n")))
		}
	}
	for _, name := range names {
		var key string
		if b.store != nil {
			key = ingest.Key("side", name)
		}
		err := b.cachedFile(s.Path+name, key, func(w io.Writer) error {
			if data == nil {
				fs, err := full()
				if err != nil {
					return err
				}
				_, data = b.sideFiles(fs)
			}
			get := data[name]
			if get == nil {
				return fmt.Errorf("%s: no longer in the session", name)
			}
			d, err := get()
			if err == nil {
				_, err = w.Write(d)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sideFiles names the files beside a session's page, in order, and how to
// get each one's content.
func (b *builder) sideFiles(s *Session) ([]string, map[string]func() ([]byte, error)) {
	var names []string
	data := map[string]func() ([]byte, error){}
	add := func(name string, get func() ([]byte, error)) {
		if name != "" && data[name] == nil {
			names = append(names, name)
			data[name] = get
		}
	}
	image := func(img *transcript.Image) {
		add(imageURL(img), func() ([]byte, error) {
			if img.Blob != "" {
				return b.blob(img.Blob)
			}
			return img.Data, nil
		})
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		image(p.Image)
		if r := p.Result; r != nil {
			for _, img := range r.Images {
				image(img)
			}
			if out := r.Output; render.IsHuge(out) {
				add(render.OutputFile(out), func() ([]byte, error) { return []byte(render.StripANSI(out)), nil })
			}
		}
	})
	return names, data
}

// getCached is the cache entry key, if there is a cache and the entry.
func (b *builder) getCached(key string) ([]byte, bool) {
	if key == "" {
		return nil, false
	}
	return b.store.Get(key)
}

// prepare readies a session for the search index, from the cache when it
// can; nil when the session cannot be read.
func (b *builder) prepare(s *Session, dig string, full func() (*Session, error)) *search.Prepared {
	var key string
	if b.store != nil && dig != "" {
		key = prepareKey(b.theme, dig, s)
	}
	if data, ok := b.getCached(key); ok {
		p := new(search.Prepared)
		if p.UnmarshalBinary(data) == nil {
			return p
		}
	}
	fs, err := full()
	if err != nil {
		return nil // the page says why
	}
	p := searchSession(fs, b.site.Config.Search)
	if key != "" {
		if data, err := p.MarshalBinary(); err == nil {
			b.store.Put(key, data)
		}
	}
	return p
}

// unit is sessions rendered together: those of one group of files that
// were read, and are read back, together (see ingest.Result.Groups).
type unit struct {
	group    int                   // -1 for a session that kept its turns
	members  []*transcript.Session // the group's sessions, as Load returns them
	sessions []int                 // indices in the site's sessions
}

func (b *builder) units() []unit {
	at := make(map[*transcript.Session]int, len(b.site.Sessions))
	for i, s := range b.site.Sessions {
		at[s.Session] = i
	}
	var us []unit
	if b.res != nil {
		for g, members := range b.res.Groups() {
			u := unit{group: g, members: members}
			for _, m := range members {
				if i, ok := at[m]; ok && m.Kept != nil {
					u.sessions = append(u.sessions, i)
					delete(at, m)
				}
			}
			if len(u.sessions) > 0 {
				us = append(us, u)
			}
		}
	}
	for i, s := range b.site.Sessions {
		if _, ok := at[s.Session]; ok {
			us = append(us, unit{group: -1, sessions: []int{i}})
		}
	}
	return us
}

// loader returns how to get a session of u with its turns: the session
// itself when it kept them, or else u's group is loaded, once, when a
// session first needs it, and dropped with the loader.
func (b *builder) loader(ctx context.Context, u unit) func(*Session) (*Session, error) {
	load := sync.OnceValues(func() ([]*transcript.Session, error) { return b.res.Load(ctx, u.group) })
	return func(s *Session) (*Session, error) {
		if s.Kept == nil {
			return s, nil
		}
		ss, err := load()
		if err != nil {
			return nil, err
		}
		full := *s
		full.Session = ss[slices.Index(u.members, s.Session)]
		return &full, nil
	}
}

func prepareKey(theme, dig string, s *Session) string {
	return ingest.Key("search", theme, dig, s.Path, s.Title, s.Project.Name)
}

// pageContext is what a session's page shows of the rest of the site.
func pageContext(s *Session) string {
	link := func(o *Session) [2]string {
		if o == nil {
			return [2]string{}
		}
		return [2]string{o.Path, o.Title}
	}
	var children [][2]string
	pg := &Page{Session: s, Site: s.site}
	for _, c := range pg.Children() {
		children = append(children, link(c))
	}
	subagents := map[string]string{}
	for _, l := range s.summary.Subagents {
		subagents[l.Session] = pg.SessionURL(l.Session)
	}
	data, _ := json.Marshal([]any{s.Path, s.Title, s.Project.Name, s.Project.Path,
		link(s.Prev), link(s.Next), link(pg.Parent()), children, subagents})
	return string(data)
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
	Started   time.Time      `json:"started"`
	Ended     time.Time      `json:"ended"`
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
