package sink_test

// The tests of what a Dir does across builds: they build the test site of
// package site.

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents" // the test site's sessions are read as the command reads them
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site"
	_ "github.com/transcriptsite/transcriptsite/site/outputs" // and written as it writes them
	"github.com/transcriptsite/transcriptsite/site/sink"
)

// A rebuild keeps the previous site's files without reading them when
// they are as the last build left them, and reads those that are not: a
// file changed in place, or another file put in its place.
func TestKeptFilesAreStamped(t *testing.T) {
	var read []string
	var mu sync.Mutex // workers keep files at once
	sum := *sink.SumFile
	defer func(s time.Duration) { *sink.SumFile, *sink.Settle = sum, s }(*sink.Settle)
	*sink.SumFile = func(p string) (cache.Sum, error) {
		mu.Lock()
		read = append(read, p)
		mu.Unlock()
		return sum(p)
	}
	*sink.Settle = 0 // every stamp is saved, however young

	cfg, b := cachedSite(t)
	mustBuild(t, b)
	want := treetest.Tree(t, cfg.Destination)
	page := filepath.Join(cfg.Destination, "sessions/alpha/2026-05-02-second-alpha-session-22222222/index.html")
	before, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}

	mustBuild(t, b)
	if len(read) != 0 {
		t.Errorf("a rebuild with nothing changed read %d files of the previous site: %q", len(read), read[:min(3, len(read))])
	}
	if after, err := os.Stat(page); err != nil || !os.SameFile(before, after) {
		t.Errorf("the page was not kept: %v", err)
	}
	treetest.SameTree(t, want, treetest.Tree(t, cfg.Destination))

	// Changed in place, the same size: read, found changed, made again.
	data := []byte(strings.Repeat("x", len(want[filepath.FromSlash("sessions/alpha/2026-05-02-second-alpha-session-22222222/index.html")])))
	time.Sleep(20 * time.Millisecond) // past the file system's tick
	treetest.Overwrite(t, page, data)
	// Another file put in its place, with the size and time of the one before.
	md := filepath.Join(filepath.Dir(page), "session.md")
	fi, _ := os.Stat(md)
	tmp := md + ".new"
	if err := os.WriteFile(tmp, []byte(strings.Repeat("y", int(fi.Size()))), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
	if err := os.Rename(tmp, md); err != nil {
		t.Fatal(err)
	}
	read = nil
	mustBuild(t, b)
	slices.Sort(read)
	if !slices.Equal(read, []string{page, md}) {
		t.Errorf("the rebuild read %q, want the two files changed", read)
	}
	treetest.SameTree(t, want, treetest.Tree(t, cfg.Destination))

	// Stamps taken in the tick a file was written prove nothing: none is
	// saved, and the next build reads every file it keeps.
	*sink.Settle = time.Hour
	mustBuild(t, b)
	inodes := stats(t, cfg.Destination)
	read = nil
	mustBuild(t, b)
	kept := 0
	for rel, fi := range stats(t, cfg.Destination) {
		if os.SameFile(fi, inodes[rel]) {
			kept++
		}
	}
	if len(read) != kept || kept < 10 {
		t.Errorf("with no stamp settled, a rebuild read %d files and kept %d", len(read), kept)
	}
	treetest.SameTree(t, want, treetest.Tree(t, cfg.Destination))
}

// A rebuild that changes nothing leaves the site as it is: the same
// folder, files and times, nothing made beside it and nothing written to
// the cache. One that changes something swaps in a whole new site, which
// drops a file the build does not make.
func TestUnchangedRebuildLeavesSite(t *testing.T) {
	defer func(s time.Duration) { *sink.Settle = s }(*sink.Settle)
	*sink.Settle = 0 // every stamp is saved by the first build, however young
	cfg, b := cachedSite(t)
	mustBuild(t, b)
	want := treetest.Tree(t, cfg.Destination)
	folder, err := os.Stat(cfg.Destination)
	if err != nil {
		t.Fatal(err)
	}
	files, cached := stats(t, cfg.Destination), stats(t, cfg.CacheDir)
	made := watchBeside(filepath.Dir(cfg.Destination))
	mustBuild(t, b)
	if made := made(); len(made) > 0 {
		t.Errorf("a rebuild with nothing changed made %q beside the site", made)
	}
	if now, err := os.Stat(cfg.Destination); err != nil || !os.SameFile(folder, now) {
		t.Errorf("a rebuild with nothing changed replaced the site's folder (%v)", err)
	}
	sameFiles(t, files, stats(t, cfg.Destination), true)
	sameFiles(t, cached, stats(t, cfg.CacheDir), false) // its table is written whole

	// A file the build does not make: the site is swapped, without it.
	extra := filepath.Join(cfg.Destination, "notes.txt")
	if err := os.WriteFile(extra, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, b)
	if _, err := os.Stat(extra); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file the build does not make is still in the site: %v", err)
	}
	treetest.SameTree(t, want, treetest.Tree(t, cfg.Destination))
}

// Where the file system has no links, the files kept before the first
// change are copied into the new site.
func TestKeptFilesCopiedWithoutLinks(t *testing.T) {
	cfg, b := cachedSite(t)
	mustBuild(t, b)
	want := treetest.Tree(t, cfg.Destination)
	defer func(l func(string, string) error) { *sink.LinkFile = l }(*sink.LinkFile)
	*sink.LinkFile = func(string, string) error { return errors.ErrUnsupported }
	p := filepath.Join(cfg.Dir, "content", "alpha", "two.jsonl")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(data, []byte(`"text":"ok"`), []byte(`"text":"all done"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, b)
	got := treetest.Tree(t, cfg.Destination)
	changed := 0
	for rel, data := range got {
		if !bytes.Equal(want[rel], data) {
			changed++
		}
	}
	if changed == 0 || changed == len(got) {
		t.Errorf("%d files of %d changed", changed, len(got))
	}
	mustBuild(t, newBuilder(t, cfg, site.BuildOptions{IgnoreCache: true}))
	treetest.SameTree(t, treetest.Tree(t, cfg.Destination), got)
}

// cachedSite is the test site with a cache of its own.
func cachedSite(t *testing.T) (*site.Config, *site.Builder) {
	t.Helper()
	dir := treetest.Extract(t, "../testdata/site.txtar")
	cfg, _, err := site.LoadConfig(site.Options{Source: dir, Overrides: map[string]any{"cacheDir": filepath.Join(t.TempDir(), "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, newBuilder(t, cfg, site.BuildOptions{})
}

// watchBeside watches for temporary sites in parent until the function it
// returns is called, which returns those it saw.
func watchBeside(parent string) func() []string {
	seen := make(chan []string)
	go func() {
		names := map[string]bool{}
		for {
			select {
			case seen <- slices.Sorted(maps.Keys(names)):
				return
			default:
			}
			entries, _ := os.ReadDir(parent)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					names[e.Name()] = true
				}
			}
		}
	}()
	return func() []string { return <-seen }
}

// sameFiles checks that the files now are those that were, with their
// times and sizes, and the same inodes when inodes is set.
func sameFiles(t *testing.T, was, now map[string]os.FileInfo, inodes bool) {
	t.Helper()
	for p, fi := range now {
		w := was[p]
		if w == nil || !w.ModTime().Equal(fi.ModTime()) || w.Size() != fi.Size() || inodes && !os.SameFile(w, fi) {
			t.Errorf("%s was written", p)
		}
	}
	if len(now) != len(was) {
		t.Errorf("%d files, then %d", len(was), len(now))
	}
}

// stats stats every file under dir.
func stats(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out[p], err = os.Stat(p)
		}
		return err
	})
	return out
}

func newBuilder(t *testing.T, cfg *site.Config, o site.BuildOptions) *site.Builder {
	t.Helper()
	b, err := site.NewBuilder(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustBuild(t *testing.T, b *site.Builder) {
	t.Helper()
	if _, err := b.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
}
