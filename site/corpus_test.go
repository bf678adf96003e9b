package site

import (
	"bytes"
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// corpusSite returns the shared corpus beside the repository, and a site
// dir to build it in; it skips the test when the corpus is not there.
func corpusSite(t *testing.T) (corpus, dir string) {
	t.Helper()
	corpus, _ = filepath.Abs("../../shared/corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	dir = t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Corpus\n"), 0o644)
	return corpus, dir
}

// TestCorpusSite builds the shared corpus beside the repository, when it is
// there, and checks that every session has its page and that every tool
// kind is rendered by its own partial somewhere.
func TestCorpusSite(t *testing.T) {
	corpus, dir := corpusSite(t)
	cfg, rep, err := build(t, dir, map[string]any{"contentDir": corpus})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notices) > 0 {
		t.Errorf("notices: %q", rep.Notices)
	}
	var pages strings.Builder
	for _, e := range readSessions(t, cfg.Destination) {
		if e.Messages == 0 {
			t.Errorf("%s has no messages", e.Source)
		}
		pages.WriteString(readFile(t, cfg.Destination, e.URL+"index.html"))
	}
	all := pages.String()
	for _, want := range []string{
		`class="tool tool-shell`, `class="tool tool-edit`, `class="tool tool-write`, `class="tool tool-read`,
		`class="tool tool-search`, `class="tool tool-web`, `class="tool tool-task`, `class="tool tool-mcp`,
		`class="tool tool-other`, `class="checklist"`, `class="subagent-link"`, `class="row add"`,
		`class="thinking"`, `class="event event-compaction"`, `class="image"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no session page has %s", want)
		}
	}
	if strings.ContainsAny(all, "\x1b\x00") {
		t.Error("a control byte reached a page")
	}
	checkLinks(t, cfg.Destination, "")
}

// TestReleasedSessionsBuildTheSameSite builds the shared corpus with every
// session held in memory (no cache), then through a cache that holds what
// it parses (cold) or releases it, and from that cache (warm): the sites
// must be the same to the byte, so merging files in groups and reading
// turns back loses nothing.
func TestReleasedSessionsBuildTheSameSite(t *testing.T) {
	corpus, dir := corpusSite(t)
	run := func(cacheDir string) (map[string][]byte, *Report) {
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"contentDir": corpus}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.CacheDir = cacheDir
		rep, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return treetest.Tree(t, cfg.Destination), rep
	}
	held, _ := run("")
	builds := map[string]map[string][]byte{}
	for _, hold := range []int64{holdBytes, 0} { // the corpus held whole, then none of it
		name := map[bool]string{true: "held", false: "released"}[hold > 0]
		defer func(h int64) { holdBytes = h }(holdBytes)
		holdBytes = hold
		cache := t.TempDir()
		cold, rep := run(cache)
		if rep.Rendered != rep.Sessions {
			t.Errorf("%s cold build rendered %d of %d sessions", name, rep.Rendered, rep.Sessions)
		}
		warm, rep := run(cache)
		if rep.Rendered != 0 {
			t.Errorf("%s warm build rendered %d sessions", name, rep.Rendered)
		}
		builds[name+" cold"], builds[name+" warm"] = cold, warm
	}
	for name, site := range builds {
		for rel, data := range held {
			if got, ok := site[rel]; !ok {
				t.Errorf("%s build: no %s", name, rel)
			} else if !bytes.Equal(got, data) {
				t.Errorf("%s build: %s differs from the build that held every session", name, rel)
			}
		}
		for rel := range site {
			if _, ok := held[rel]; !ok {
				t.Errorf("%s build: %s is not in the build that held every session", name, rel)
			}
		}
	}
	if len(held) < 100 {
		t.Errorf("only %d files built", len(held))
	}
}

// TestCorpusPagesInBrowser checks the real sessions' pages, not only the
// fixtures': at 390 px no page of the site scrolls sideways; the longest
// sessions show their first message on the first screen, on a laptop and
// on a phone; and axe finds no serious violation on them in either theme.
func TestCorpusPagesInBrowser(t *testing.T) {
	axe := axeSource(t)
	ctx, consoleErrors := browser(t)
	cfg, base := servedCorpus(t)
	pages := []string{"", "stats/"}
	projects, _ := filepath.Glob(filepath.Join(cfg.Destination, "projects", "*", "index.html"))
	for _, p := range projects {
		rel, _ := filepath.Rel(cfg.Destination, filepath.Dir(p))
		pages = append(pages, filepath.ToSlash(rel)+"/")
	}
	longest := longestSessions(t, cfg.Destination, 3)
	checkPhoneWidths(t, ctx, base, append(pages, longest...))
	for _, size := range [][2]int64{{1280, 900}, {390, 844}} {
		do(t, ctx, chromedp.EmulateViewport(size[0], size[1]))
		for _, p := range longest {
			do(t, ctx, chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("footer")))
			top := run(t, ctx, chromedp.Evaluate[float64](`(() => { const m = [...document.querySelectorAll(".msg")].find(m => m.checkVisibility());
				return m ? m.getBoundingClientRect().top : 1e9; })()`))
			if top >= float64(size[1]) {
				t.Errorf("%dx%d: /%s shows its first message %.0f px down, below the first screen", size[0], size[1], p, top)
			}
		}
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, media("prefers-color-scheme", theme))
		for _, p := range longest[:2] {
			do(t, ctx, chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("footer")))
			checkAxe(t, ctx, axe, p+", "+theme+" theme")
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// longestSessions are the n session pages of the site at dest with the
// most bytes, as paths from its root.
func longestSessions(t *testing.T, dest string, n int) []string {
	t.Helper()
	type page struct {
		path string
		size int64
	}
	var all []page
	for _, e := range readSessions(t, dest) {
		if fi, err := os.Stat(filepath.Join(dest, filepath.FromSlash(e.URL), "index.html")); err == nil {
			all = append(all, page{e.URL, fi.Size()})
		}
	}
	slices.SortFunc(all, func(a, b page) int { return cmp.Compare(b.size, a.size) })
	var out []string
	for _, p := range all[:min(n, len(all))] {
		out = append(out, p.path)
	}
	return out
}

// servedCorpus builds the shared corpus's site and serves it until the
// test ends: its config and its address.
func servedCorpus(t *testing.T) (*Config, string) {
	t.Helper()
	corpus, dir := corpusSite(t)
	cfg, _, err := build(t, dir, map[string]any{"contentDir": corpus})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	t.Cleanup(srv.Close)
	return cfg, srv.URL + "/"
}
