package site

import (
	"context"
	"fmt"
	"html/template"
	"os"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/heap"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/redactreport"
	"github.com/transcriptsite/transcriptsite/site/sink"
	"github.com/transcriptsite/transcriptsite/site/theme"
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

// Files is a site built into memory, by slash path.
type Files = sink.Files

// Builder builds a site, once (build) or again and again (serve): what it
// caches makes the next build redo only what changed.
type Builder struct {
	cfg   *Config
	opts  BuildOptions
	store *cache.Store // nil when the site has no cache dir
	last  Files        // the last site BuildFiles made: its unchanged files are kept
}

// NewBuilder returns a builder of the site cfg configures.
func NewBuilder(cfg *Config, opts BuildOptions) (*Builder, error) {
	b := &Builder{cfg: cfg, opts: opts}
	if cfg.CacheDir != "" {
		st, err := cache.New(cfg.CacheDir, !opts.IgnoreCache)
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
		if err := redactreport.Check(bd.cfg.Destination, f); err != nil {
			return nil, err
		}
	}
	out, err := sink.OpenDir(ctx, bd.cfg.Destination, bd.waiting("destination "+bd.cfg.Destination))
	if err != nil {
		return nil, err
	}
	rep, err := bd.build(ctx, out)
	if err == nil {
		err = out.Commit()
	}
	if err != nil {
		out.Abort()
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
	out := sink.NewMemory(bd.last)
	rep, err := bd.build(ctx, out)
	if err != nil {
		return nil, nil, err
	}
	bd.last = out.Files()
	return bd.last, rep, nil
}

func (bd *Builder) build(ctx context.Context, out sink.Sink) (*Report, error) {
	start := time.Now()
	th, err := loadTheme(bd.cfg)
	if err != nil {
		return nil, err
	}
	res, headers, done, err := bd.load(ctx, holdBytes)
	if err != nil {
		return nil, err
	}
	defer done()
	saveStamps := bd.stamps(out)
	b, err := bd.newBuild(ctx, out, th, res, headers)
	if err != nil {
		return nil, err
	}
	report, err := b.run(ctx, bd.opts.Redactions != "")
	if err != nil {
		return nil, err
	}
	saveStamps()
	rep := b.report(res, headers, report)
	if err := bd.endCache(rep); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// stamps loads the stamps of the files of a destination built before, and
// returns what saves those of the files this build makes.
func (bd *Builder) stamps(out sink.Sink) (save func()) {
	dir, ok := out.(*sink.Dir)
	if !ok || bd.store == nil {
		return func() {}
	}
	dir.LoadStamps(bd.store)
	return func() { dir.SaveStamps(bd.store) }
}

// parsedTheme is the site's templates and the highlighting's stylesheet.
type parsedTheme struct {
	tpl    map[string]*template.Template
	chroma string
}

func loadTheme(cfg *Config) (th parsedTheme, err error) {
	if th.tpl, err = theme.Load(cfg.Theme); err != nil {
		return th, err
	}
	if th.chroma, err = render.ChromaCSS(cfg.Highlight.Style, cfg.Highlight.DarkStyle); err != nil {
		return th, fmt.Errorf("highlight: %w", err)
	}
	return th, nil
}

// newBuild makes the build of the sessions read, with the theme's
// templates and the digest of all a page depends on besides its session.
func (bd *Builder) newBuild(ctx context.Context, out sink.Sink, th parsedTheme, res *ingest.Result, headers []*transcript.Header) (*builder, error) {
	cfg := bd.cfg
	tpl, chroma := th.tpl, th.chroma
	st := newSite(cfg, headers)
	// A site served from memory keeps its asset names, so a stylesheet that
	// changes leaves the pages as they were and is swapped in place.
	b := &builder{site: st, tpl: tpl, out: sink.WithContext(ctx, out), store: bd.store, memory: bd.opts.Memory, res: res, hashes: res.Hashes, fingerprint: !bd.opts.Memory}
	st.assets = map[string]string{}
	b.digests()
	b.units, b.unitOf = b.makeUnits()
	var err error
	b.themeBase, err = themeDigest(cfg, chroma)
	b.theme = b.themeBase
	return b, err
}

// digests computes the content digests of the sessions, for cache keys;
// none without a cache.
func (b *builder) digests() {
	ss := b.site.Sessions
	b.digs = make([]string, len(ss))
	if b.store == nil {
		return
	}
	for i, s := range ss {
		b.digs[i] = digest(s, b.hashes)
	}
}

// run writes the site, and returns the report of what was redacted when
// redactions asks for one.
func (b *builder) run(ctx context.Context, redactions bool) (report []byte, err error) {
	if redactions {
		// Before the pages are made, which release the turns it reads.
		if report, err = b.redactions(ctx); err != nil {
			return nil, err
		}
	}
	return report, b.write(ctx)
}

// report says what the build read and did.
func (b *builder) report(res *ingest.Result, headers []*transcript.Header, redactions []byte) *Report {
	rep := &Report{Sessions: b.site.Stats.Sessions, Files: res.Files, Warnings: append(res.Warnings, b.warnings...), Notices: b.notices,
		Redacted: total(headers), Rendered: int(b.rendered.Load()), redactions: redactions}
	if len(res.Headers) == 0 {
		rep.Notices = append(rep.Notices, noSessions(b.site.Config))
	}
	return rep
}

// endCache reports what the build found in the cache, and removes from it
// what the options say to.
func (bd *Builder) endCache(rep *Report) error {
	if bd.store == nil {
		return nil
	}
	var damaged []string
	rep.CacheHits, rep.CacheMisses, damaged = bd.store.Report()
	if len(damaged) > 0 {
		rep.Notices = append(rep.Notices, damagedNotice(bd.cfg.CacheDir, damaged))
	}
	if bd.opts.GC {
		var err error
		if rep.CacheRemoved, err = bd.store.GC(); err != nil {
			return fmt.Errorf("cache gc: %w", err)
		}
	}
	if bd.opts.Memory {
		bd.store.Trim()
	}
	return nil
}

// load reads the sessions the site shows, through the cache when it has
// one, keeping whole those of the first hold bytes of files parsed anew;
// done ends what the load began, once the sessions are no longer read.
func (bd *Builder) load(ctx context.Context, hold int64) (res *ingest.Result, headers []*transcript.Header, done func(), err error) {
	cfg := bd.cfg
	opts, err := readOptions(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	// A build allocates several times what it parses (the real Claude
	// sessions x20: 650 MB for 97 MB): the heap it grows into is faulted
	// in at once when parsing starts, and kept until the build ends.
	release, warm := func() {}, opts.Parsing
	opts.Parsing = func(size int64) {
		if warm != nil {
			warm(size)
		}
		release = heap.Reserve(4 * size)
	}
	done = func() { release() }
	if bd.store != nil {
		if err := bd.store.Begin(ctx, bd.waiting("cache "+cfg.CacheDir)); err != nil {
			return nil, nil, nil, fmt.Errorf("cacheDir: %w", err)
		}
		done = func() { release(); bd.store.End() }
		// Sessions keep only their summaries until their pages are made,
		// but for those of the first hold bytes of files parsed anew.
		opts.Cache, opts.Blobs, opts.Release, opts.Hold = bd.store, bd.store, true, hold
	}
	if res, err = ingest.LoadCached(ctx, opts, cfg.Roots()...); err != nil {
		done()
		return nil, nil, nil, err
	}
	return res, selected(cfg, res.Headers), done, nil
}

// Load reads the sessions a build would show, through the build cache,
// and makes the site of them, its figures computed, without rendering or
// writing a page: what `transcriptsite stats` reports on. The report
// counts the sessions and files and has the warnings.
func (bd *Builder) Load(ctx context.Context) (*Site, *Report, error) {
	res, headers, done, err := bd.load(ctx, 0)
	if err != nil {
		return nil, nil, err
	}
	done()
	st := newSite(bd.cfg, headers)
	rep := &Report{Sessions: st.Stats.Sessions, Files: res.Files, Warnings: res.Warnings}
	if len(res.Headers) == 0 {
		rep.Notices = append(rep.Notices, noSessions(bd.cfg))
	}
	return st, rep, nil
}

// noSessions says where no session was found, and how to find some.
func noSessions(cfg *Config) string {
	var dirs []string
	for _, m := range cfg.Mounts {
		if m.Dir != "" {
			dirs = append(dirs, m.Dir)
		}
	}
	where := "the content folder"
	if len(dirs) > 0 {
		where = strings.Join(dirs, ", ")
	}
	hint := "copy or link your agents' session folders there (~/.claude/projects, ~/.codex/sessions, …), or build with --agents to read every installed agent's sessions (`transcriptsite formats` lists where they are)"
	if cfg.Content.Agents {
		hint = "no installed agent's session folder holds any either (`transcriptsite formats` lists where they are looked for)"
	}
	return "no sessions found in " + where + ": " + hint
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
