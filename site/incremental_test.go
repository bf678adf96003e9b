package site

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

func TestIncrementalBuild(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cache := filepath.Join(t.TempDir(), "cache")
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": cache}})
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(t, cfg, BuildOptions{})
	cold := mustBuild(t, b)
	first := treetest.Tree(t, cfg.Destination)
	if n := exportsIn(first); n != 2*cold.Sessions {
		t.Errorf("cold build wrote %d exports for %d sessions", n, cold.Sessions)
	}
	if cold.Rendered != cold.Sessions {
		t.Errorf("cold build rendered %d of %d pages", cold.Rendered, cold.Sessions)
	}

	// Nothing changed: nothing is parsed or rendered again, and the site is the same.
	warm := mustBuild(t, b)
	if warm.Rendered != 0 || warm.CacheMisses != 0 {
		t.Errorf("warm build rendered %d pages with %d cache misses", warm.Rendered, warm.CacheMisses)
	}
	treetest.SameTree(t, first, treetest.Tree(t, cfg.Destination)) // exports included
	index := 0
	for name := range first {
		if strings.HasPrefix(name, "search/") && name != "search/index.html" {
			index++
		}
	}
	if n := linkedFromCache(t, cfg.Destination, cache); n != 0 || index < 4 {
		t.Errorf("%d files of the warm build are the cache's files (%d files in the index)", n, index)
	}

	// One session grows: only its page is rendered again.
	p := filepath.Join(dir, "content", "alpha", "two.jsonl")
	data, _ := os.ReadFile(p)
	more := `{"parentUuid":"a1","sessionId":"22222222-bbbb-4000-8000-000000000002","type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"a later reply"}]},"uuid":"a2","timestamp":"2026-05-02T10:04:00Z"}` + "\n"
	if err := os.WriteFile(p, append(data, more...), 0o644); err != nil {
		t.Fatal(err)
	}
	one := mustBuild(t, b)
	if one.Rendered != 1 {
		t.Errorf("after one session changed, %d pages were rendered", one.Rendered)
	}
	page := readFile(t, cfg.Destination, "sessions/alpha/2026-05-02-second-alpha-session-22222222/index.html")
	if !strings.Contains(page, "a later reply") {
		t.Error("the changed session's page does not show the change")
	}
	if md := readFile(t, cfg.Destination, "sessions/alpha/2026-05-02-second-alpha-session-22222222/session.md"); !strings.Contains(md, "a later reply") {
		t.Error("the changed session's export does not show the change")
	}

	// The change undone: the site of the first build, its search index
	// from the files the cache stored by their content then.
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if back := mustBuild(t, b); back.Rendered != 0 || back.CacheMisses > 1 { // the file's hash, as it was written anew
		t.Errorf("the change undone: %d pages rendered, %d cache misses", back.Rendered, back.CacheMisses)
	}
	treetest.SameTree(t, first, treetest.Tree(t, cfg.Destination))

	// The cached site is the site built from nothing.
	cached := treetest.Tree(t, cfg.Destination)
	rep := mustBuild(t, newBuilder(t, cfg, BuildOptions{IgnoreCache: true}))
	if rep.Rendered != rep.Sessions {
		t.Errorf("--ignoreCache rendered %d of %d pages", rep.Rendered, rep.Sessions)
	}
	treetest.SameTree(t, cached, treetest.Tree(t, cfg.Destination))

	// A template change renders every page again.
	tpl := filepath.Join(dir, "templates", "partials", "msg-time.html")
	_ = os.MkdirAll(filepath.Dir(tpl), 0o755)
	_ = os.WriteFile(tpl, []byte(`<time class="custom"></time>`), 0o644)
	all := mustBuild(t, b)
	if all.Rendered != all.Sessions {
		t.Errorf("after a template change %d of %d pages were rendered", all.Rendered, all.Sessions)
	}

	// --gc removes what the last build did not use.
	if rep := mustBuild(t, newBuilder(t, cfg, BuildOptions{GC: true})); rep.CacheRemoved == 0 {
		t.Errorf("gc removed %d entries", rep.CacheRemoved)
	}
}

// newBuilder returns a builder of the site cfg configures.
func newBuilder(t *testing.T, cfg *Config, o BuildOptions) *Builder {
	t.Helper()
	b, err := NewBuilder(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustBuild builds with b.
func mustBuild(t *testing.T, b *Builder) *Report {
	t.Helper()
	rep, err := b.Build(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// exportsIn counts the exports in a built site.
func exportsIn(files map[string][]byte) int {
	n := 0
	for name := range files {
		if b := filepath.Base(name); b == "session.md" || b == "session.json" {
			n++
		}
	}
	return n
}

// linkedFromCache counts the files of the site that are files of the cache
// (hard links), not copies.
func linkedFromCache(t *testing.T, site, cache string) int {
	t.Helper()
	var entries []os.FileInfo
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := os.Stat(p); err == nil {
				entries = append(entries, fi)
			}
		}
		return err
	})
	n := 0
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if os.SameFile(fi, e) {
				n++
				break
			}
		}
		return nil
	})
	return n
}

// A builder that builds again and again (serve) as a session grows holds
// what one build needs, not every version of the session: its heap and
// its cache stay the size they were after the first build. They grew by
// the session's size and more at every rebuild (serve went from 479 MB
// to 2.36 GB in 12 rebuilds of a 20 MB session).
func TestRebuildsStayBounded(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(t.TempDir(), "gen")
	if _, err := synth.Generate(gen, synth.Options{Sessions: 1, Messages: 400, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var src string
	filepath.WalkDir(gen, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			src = p
		}
		return err
	})
	data, _ := os.ReadFile(src)
	lines := strings.SplitAfter(string(data), "\n")
	const rebuilds = 8
	session := filepath.Join(dir, "content", "s.jsonl")
	treetest.WriteTree(t, dir, map[string][]byte{
		"config.yaml":     []byte("title: Growing\n"),
		"content/s.jsonl": []byte(strings.Join(lines[:len(lines)-rebuilds-1], "")),
	})
	cache := filepath.Join(t.TempDir(), "cache")
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": cache}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(cfg, BuildOptions{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	var files Files // held between builds, as serve does
	measure := func() (heap, disk uint64) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if fi, err := d.Info(); err == nil && !d.IsDir() {
				disk += uint64(fi.Size())
			}
			return err
		})
		return ms.HeapAlloc, disk
	}
	var heap1, disk1 uint64
	for i := range rebuilds + 1 {
		if i > 0 {
			f, _ := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(lines[len(lines)-rebuilds-2+i])
			f.Close()
		}
		files = nil
		var rep *Report
		if files, rep, err = b.BuildFiles(context.Background()); err != nil {
			t.Fatal(err)
		}
		if rep.Rendered != 1 {
			t.Fatalf("build %d rendered %d pages", i, rep.Rendered)
		}
		if i == 0 {
			heap1, disk1 = measure()
		}
	}
	heap, disk := measure()
	t.Logf("session %d KB; heap %d KB, then %d KB; cache %d KB, then %d KB", len(data)>>10, heap1>>10, heap>>10, disk1>>10, disk>>10)
	if limit := heap1 + uint64(len(data)); heap > limit {
		t.Errorf("after %d rebuilds the heap is %d KB, more than the first build's %d KB and a session", rebuilds, heap>>10, heap1>>10)
	}
	if disk > disk1*5/4 {
		t.Errorf("after %d rebuilds the cache holds %d KB, against %d KB after the first build", rebuilds, disk>>10, disk1>>10)
	}
	runtime.KeepAlive(files)
	runtime.KeepAlive(b) // and what it caches
}

// A session prepared for the search index in parts, and read back from
// the cache in parts, gives the index it gives prepared whole.
func TestSearchInParts(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	dest := func(name string) string { return filepath.Join(t.TempDir(), name) }
	whole := dest("whole")
	if _, _, err := build(t, dir, map[string]any{"destination": whole, "cacheDir": dest("c1")}); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { partText = n }(partText)
	partText = 16 // a part per document or two
	parts, cache := dest("parts"), dest("c2")
	for _, run := range []string{"cold", "warm", "one changed"} {
		if run == "one changed" {
			// The index is made again; the other sessions' parts come
			// from the cache.
			p := filepath.Join(dir, "content", "alpha", "two.jsonl")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, data[:strings.IndexByte(string(data), '\n')+1]...), 0o644)
			partText = 8 << 20
			if _, _, err := build(t, dir, map[string]any{"destination": whole, "cacheDir": dest("c3")}); err != nil {
				t.Fatal(err)
			}
			partText = 16
		}
		if _, _, err := build(t, dir, map[string]any{"destination": parts, "cacheDir": cache}); err != nil {
			t.Fatal(err)
		}
		t.Log(run)
		treetest.SameTree(t, treetest.Tree(t, whole), treetest.Tree(t, parts))
	}
}

// The list pages come from the cache only while the sessions and the
// config are those they were made from: a session renamed, a session
// removed and a new description all show on the pages that list them.
func TestListPagesFollowTheSessions(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cache := filepath.Join(t.TempDir(), "cache")
	build := func(overrides map[string]any) string {
		t.Helper()
		overrides["cacheDir"] = cache
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: overrides})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		return cfg.Destination
	}
	dest := build(map[string]any{})
	lists := []string{"index.html", "projects/alpha/index.html", "stats/index.html"}
	shows := func(what string, want bool) {
		t.Helper()
		for _, page := range lists[:2] {
			if got := strings.Contains(readFile(t, dest, page), what); got != want {
				t.Errorf("%s shows %q: %v, want %v", page, what, got, want)
			}
		}
	}
	shows("Second alpha session", true)

	p := filepath.Join(dir, "content", "alpha", "two.jsonl")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(data, []byte("Second alpha session"), []byte("Renamed alpha session"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	build(map[string]any{})
	shows("Second alpha session", false)
	shows("Renamed alpha session", true)

	stats := readFile(t, dest, lists[2])
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	build(map[string]any{})
	shows("Renamed alpha session", false)
	if readFile(t, dest, lists[2]) == stats {
		t.Error("the stats page did not change when a session went")
	}

	build(map[string]any{"params": map[string]any{"description": "A new lead"}})
	if !strings.Contains(readFile(t, dest, "index.html"), "A new lead") {
		t.Error("the home page does not show the new description")
	}
}
