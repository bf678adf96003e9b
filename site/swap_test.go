package site

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/sink"
)

// swapSite is the test site with its destination and cache in a folder
// of their own, and what to read to see that the destination is there.
func swapSite(t *testing.T) (src, parent, dest, cache string) {
	t.Helper()
	src = treetest.Extract(t, "testdata/site.txtar")
	parent = t.TempDir()
	return src, parent, filepath.Join(parent, "public"), filepath.Join(t.TempDir(), "cache")
}

func buildInto(t *testing.T, src, dest, cache string) error {
	t.Helper()
	_, _, err := build(t, src, map[string]any{"destination": dest, "cacheDir": cache})
	return err
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
			if _, err := os.Stat(filepath.Join(dest, sink.Marker)); err != nil {
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
	if b := treetest.Beside(t, parent); len(b) > 0 {
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
	if b := treetest.Beside(t, parent); len(b) > 0 {
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
	site := treetest.Tree(t, dest)
	put := func(dir string, files map[string][]byte) {
		treetest.WriteTree(t, filepath.Join(parent, dir), files)
	}
	put(".public.tmp-111", map[string][]byte{".transcriptsite-building": nil, "index.html": []byte("half")})
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
	if b := treetest.Beside(t, parent); !slices.Equal(b, []string{".public.tmp-file", ".public.tmp-mine"}) {
		t.Errorf("beside the site: %v", b)
	}

	// Killed between the renames of a swap without exchange: no site, and
	// the previous one aside.
	if err := os.Rename(dest, filepath.Join(parent, ".public.old")); err != nil {
		t.Fatal(err)
	}
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	treetest.SameTree(t, site, treetest.Tree(t, dest))
	// Killed after them: the previous site aside, the new one in place.
	put(".public.old", site)
	if err := buildInto(t, src, dest, cache); err != nil {
		t.Fatal(err)
	}
	if b := treetest.Beside(t, parent); !slices.Equal(b, []string{".public.tmp-file", ".public.tmp-mine"}) {
		t.Errorf("beside the site: %v", b)
	}
}
