package sink_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/sink"
)

// TestRemovalStoppedAnywhereIsMended stops the removal of a site beside
// the destination after each of its entries, and before the folder
// itself, as a build killed then would, and checks that the next build's
// removeStale and recoverOld remove what is left: a site whose marker went
// first stayed for good (TestKilledBuildsLeaveNothing found it, once in CI).
func TestRemovalStoppedAnywhereIsMended(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	site := map[string][]byte{sink.Marker: []byte("[]\n"), "index.html": []byte("home"), "a/b/page.html": []byte("page"), "a/c.md": nil}
	treetest.WriteTree(t, dest, site)
	unfinished := maps.Clone(site)
	unfinished[sink.Building] = nil // a site being built, with its finished marker too
	entries, err := os.ReadDir(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func(string) error) { *sink.RemoveEntry = f }(*sink.RemoveEntry)
	for _, c := range []struct {
		name  string
		files map[string][]byte
		mend  func() error
	}{
		{".public.tmp-1", site, func() error { sink.RemoveStale(parent, "public"); return nil }},
		{".public.tmp-2", unfinished, func() error { sink.RemoveStale(parent, "public"); return nil }},
		{".public.old", site, func() error { return sink.RecoverOld(dest) }},
	} {
		for stop := range len(entries) + 2 {
			dir := filepath.Join(parent, c.name)
			treetest.WriteTree(t, dir, c.files)
			n := 0
			*sink.RemoveEntry = func(p string) error {
				if n++; n > stop {
					return errors.New("killed")
				}
				return os.RemoveAll(p)
			}
			_ = sink.RemoveSite(dir)
			*sink.RemoveEntry = os.RemoveAll
			if err := c.mend(); err != nil {
				t.Fatal(err)
			}
			if b := treetest.Beside(t, parent); len(b) > 0 {
				t.Fatalf("%s stopped after %d entries: beside the site after the next build: %v", c.name, stop, b)
			}
		}
	}
	treetest.SameTree(t, site, treetest.Tree(t, dest))
}

// A file's buffer goes back to a pool when it is closed: a write or a
// close after that must fail, not reach the file that has the buffer now.
func TestCreatedFileClosedOnce(t *testing.T) {
	o, err := sink.OpenDir(context.Background(), filepath.Join(t.TempDir(), "public"), func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	a, err := o.Create("a.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(a, "a"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := o.Create("b.html")
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
		p, _ := sink.FileOf(o, name)
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
}

// A file kept from the previous site and then written anew in the same
// build is a new file: the previous site, served until the swap, keeps
// what it held.
func TestWriteOverKeptFile(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	old := map[string][]byte{sink.Marker: []byte("[]\n"), "a/page.html": []byte("old page")}
	for rel, data := range old {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dest, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dest, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, begun := range []bool{false, true} {
		o, err := sink.OpenDir(context.Background(), dest, nil)
		if err != nil {
			t.Fatal(err)
		}
		if begun && o.Write("b.html", []byte("new")) != nil { // begins the new site
			t.Fatal("write")
		}
		if !o.Keep("a/page.html", cache.SumOf(old["a/page.html"])) {
			t.Fatal("the page was not kept")
		}
		if err := o.Write("a/page.html", []byte("a new page")); err != nil {
			t.Fatal(err)
		}
		w, err := o.Create("a/page.html")
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "a newer page")
		w.Close()
		if got, _ := os.ReadFile(filepath.Join(dest, "a/page.html")); string(got) != "old page" {
			t.Errorf("begun %v: the previous site's page now holds %q", begun, got)
		}
		o.Abort()
	}
}

// A stamp is saved once its file's time is older than the file system's
// tick: 50 ms, or two seconds where times are whole seconds.
func TestStampSettles(t *testing.T) {
	now := time.Unix(1_800_000_000, 500_000_000)
	for _, c := range []struct {
		mtime time.Time
		want  bool
	}{
		{now.Add(-100 * time.Millisecond), true},
		{now.Add(-10 * time.Millisecond), false},
		{now, false},
		{time.Unix(1_800_000_000, 0), false}, // whole seconds, half a second old
		{time.Unix(1_799_999_999, 0), false}, // 1.5 s
		{time.Unix(1_799_999_998, 0), true},  // 2.5 s
	} {
		if got := sink.Settled(c.mtime.UnixNano(), now); got != c.want {
			t.Errorf("sink.Settled(%v) at %v = %v, want %v", c.mtime, now, got, c.want)
		}
	}
}

// A site swapped out between the two renames of a swap without exchange,
// with no site in its place, is put back.
func TestOldSiteIsPutBack(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	site := map[string][]byte{sink.Marker: []byte("[]\n"), "a/page.html": []byte("page")}
	treetest.WriteTree(t, sink.OldSite(dest), site)
	if err := sink.RecoverOld(dest); err != nil {
		t.Fatal(err)
	}
	treetest.SameTree(t, site, treetest.Tree(t, dest))
}
