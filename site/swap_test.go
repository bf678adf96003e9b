package site

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
)

// swapSite is the test site with its destination and cache in a folder
// of their own, and what to read to see that the destination is there.
func swapSite(t *testing.T) (src, parent, dest, cache string) {
	t.Helper()
	src = extract(t, "testdata/site.txtar")
	parent = t.TempDir()
	return src, parent, filepath.Join(parent, "public"), filepath.Join(t.TempDir(), "cache")
}

func buildInto(t *testing.T, src, dest, cache string) error {
	t.Helper()
	_, _, err := build(t, src, map[string]any{"destination": dest, "cacheDir": cache})
	return err
}

// beside lists what is in parent besides the site.
func beside(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "public" {
			names = append(names, e.Name())
		}
	}
	return names
}

// The swap is one exchange: at no moment of a rebuild is the destination
// missing. With two renames, a reader saw no site between them.
func TestSwapLeavesNoGap(t *testing.T) {
	src, parent, dest, cache := swapSite(t)
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var looks, gaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			looks.Add(1)
			if _, err := os.Stat(filepath.Join(dest, marker)); err != nil {
				gaps.Add(1)
			}
		}
	})
	for range 40 {
		if err := buildInto(t, src, dest, cache); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if gaps.Load() > 0 {
		t.Errorf("the destination was missing %d times of %d looks", gaps.Load(), looks.Load())
	}
	if b := beside(t, parent); len(b) > 0 {
		t.Errorf("left beside the site: %v", b)
	}
}

// Builds of one destination and one cache at once take turns: each
// succeeds, and none leaves anything beside the site. Two renames let a
// build swap in the gap of another, fail with "file exists" and leak the
// previous site.
func TestBuildsTakeTurns(t *testing.T) {
	src, parent, dest, cache := swapSite(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			cfg, _, err := LoadConfig(Options{Source: src, Overrides: map[string]any{"destination": dest, "cacheDir": cache}})
			if err == nil {
				_, err = Build(context.Background(), cfg)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(readSessions(t, dest)); n != 5 {
		t.Errorf("%d sessions in the site", n)
	}
	if b := beside(t, parent); len(b) > 0 {
		t.Errorf("left beside the site: %v", b)
	}
}

// What a killed build leaves is mended by the next: a temporary site
// (being built, or the previous site swapped out) is removed, and a site
// left aside between two renames is put back; a folder of the user's
// that only looks like one is left alone.
func TestLeftoversAreMended(t *testing.T) {
	src, parent, dest, cache := swapSite(t)
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	site := tree(t, dest)
	put := func(dir string, files map[string][]byte) {
		writeTree(t, filepath.Join(parent, dir), files)
	}
	put(".public.tmp-111", map[string][]byte{building: nil, "index.html": []byte("half")})
	put(".public.tmp-222", site)                                            // swapped out, not yet removed
	put(".public.tmp-333.old", site)                                        // an older version's name
	put(".public.tmp-mine", map[string][]byte{"notes.txt": []byte("mine")}) // no marker
	// Killed after making the folder, before writing the marker in it.
	if err := os.Mkdir(filepath.Join(parent, ".public.tmp-444"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A file of the user's by that name is not a site either.
	if err := os.WriteFile(filepath.Join(parent, ".public.tmp-file"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	if b := beside(t, parent); !slices.Equal(b, []string{".public.tmp-file", ".public.tmp-mine"}) {
		t.Errorf("beside the site: %v", b)
	}

	// Killed between the renames of a swap without exchange: no site, and
	// the previous one aside.
	if err := os.Rename(dest, oldSite(dest)); err != nil {
		t.Fatal(err)
	}
	if err := recoverOld(dest); err != nil {
		t.Fatal(err)
	}
	sameTree(t, site, tree(t, dest))
	// Killed after them: the previous site aside, the new one in place.
	put(".public.old", site)
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	if b := beside(t, parent); !slices.Equal(b, []string{".public.tmp-file", ".public.tmp-mine"}) {
		t.Errorf("beside the site: %v", b)
	}
}

// TestRemovalStoppedAnywhereIsMended stops the removal of a site beside
// the destination after each of its entries, and before the folder
// itself, as a build killed then would, and checks that the next build's
// removeStale and recoverOld remove what is left: a site whose marker went
// first stayed for good (TestKilledBuildsLeaveNothing found it, once in CI).
func TestRemovalStoppedAnywhereIsMended(t *testing.T) {
	src, parent, dest, cache := swapSite(t)
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	site := tree(t, dest)
	unfinished := maps.Clone(site)
	unfinished[building] = nil // a site being built, with its finished marker too
	entries, err := os.ReadDir(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func(string) error) { removeEntry = f }(removeEntry)
	for _, c := range []struct {
		name  string
		files map[string][]byte
		mend  func() error
	}{
		{".public.tmp-1", site, func() error { removeStale(parent, "public"); return nil }},
		{".public.tmp-2", unfinished, func() error { removeStale(parent, "public"); return nil }},
		{".public.old", site, func() error { return recoverOld(dest) }},
	} {
		for stop := range len(entries) + 2 {
			dir := filepath.Join(parent, c.name)
			writeTree(t, dir, c.files)
			n := 0
			removeEntry = func(p string) error {
				if n++; n > stop {
					return errors.New("killed")
				}
				return os.RemoveAll(p)
			}
			_ = removeSite(dir)
			removeEntry = os.RemoveAll
			if err := c.mend(); err != nil {
				t.Fatal(err)
			}
			if b := beside(t, parent); len(b) > 0 {
				t.Fatalf("%s stopped after %d entries: beside the site after the next build: %v", c.name, stop, b)
			}
		}
	}
	sameTree(t, site, tree(t, dest))
}

// A file's buffer goes back to a pool when it is closed: a write or a
// close after that must fail, not reach the file that has the buffer now.
func TestCreatedFileClosedOnce(t *testing.T) {
	o, err := newDestination(context.Background(), filepath.Join(t.TempDir(), "public"), func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer o.abort()
	a, err := o.create("a.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(a, "a"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := o.create("b.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write([]byte("late")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write after Close: %v, want os.ErrClosed", err)
	}
	if err := a.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close: %v, want os.ErrClosed", err)
	}
	if _, err := io.WriteString(b, "b"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.html": "a", "b.html": "b"} {
		p, _ := o.file(name)
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
}

// A rebuild that changes nothing leaves the site as it is: the same
// folder, files and times, nothing made beside it and nothing written to
// the cache. One that changes something swaps in a whole new site, which
// drops a file the build does not make.
func TestUnchangedRebuildLeavesSite(t *testing.T) {
	defer func(s time.Duration) { settle = s }(settle)
	settle = 0 // every stamp is saved by the first build, however young
	cfg, b := cachedSite(t)
	mustBuild(t, b)
	want := tree(t, cfg.Destination)
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
	sameTree(t, want, tree(t, cfg.Destination))
}

// Where the file system has no links, the files kept before the first
// change are copied into the new site.
func TestKeptFilesCopiedWithoutLinks(t *testing.T) {
	cfg, b := cachedSite(t)
	mustBuild(t, b)
	want := tree(t, cfg.Destination)
	defer func(l func(string, string) error) { linkFile = l }(linkFile)
	linkFile = func(string, string) error { return errors.ErrUnsupported }
	p := filepath.Join(cfg.Dir, "content", "alpha", "two.jsonl")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(data, []byte(`"text":"ok"`), []byte(`"text":"all done"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, b)
	got := tree(t, cfg.Destination)
	changed := 0
	for rel, data := range got {
		if !bytes.Equal(want[rel], data) {
			changed++
		}
	}
	if changed == 0 || changed == len(got) {
		t.Errorf("%d files of %d changed", changed, len(got))
	}
	mustBuild(t, newBuilder(t, cfg, BuildOptions{IgnoreCache: true}))
	sameTree(t, tree(t, cfg.Destination), got)
}

// cachedSite is the test site with a cache of its own.
func cachedSite(t *testing.T) (*Config, *Builder) {
	t.Helper()
	dir := extract(t, "testdata/site.txtar")
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": filepath.Join(t.TempDir(), "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, newBuilder(t, cfg, BuildOptions{})
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

// A file kept from the previous site and then written anew in the same
// build is a new file: the previous site, served until the swap, keeps
// what it held.
func TestWriteOverKeptFile(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	old := map[string][]byte{marker: []byte("[]\n"), "a/page.html": []byte("old page")}
	for rel, data := range old {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dest, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dest, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, begun := range []bool{false, true} {
		o, err := newDestination(context.Background(), dest, nil)
		if err != nil {
			t.Fatal(err)
		}
		if begun && o.write("b.html", []byte("new")) != nil { // begins the new site
			t.Fatal("write")
		}
		if !o.keep("a/page.html", cache.SumOf(old["a/page.html"])) {
			t.Fatal("the page was not kept")
		}
		if err := o.write("a/page.html", []byte("a new page")); err != nil {
			t.Fatal(err)
		}
		w, err := o.create("a/page.html")
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "a newer page")
		w.Close()
		if got, _ := os.ReadFile(filepath.Join(dest, "a/page.html")); string(got) != "old page" {
			t.Errorf("begun %v: the previous site's page now holds %q", begun, got)
		}
		o.abort()
	}
}
