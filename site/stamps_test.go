package site

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
)

// A rebuild keeps the previous site's files without reading them when
// they are as the last build left them, and reads those that are not: a
// file changed in place, or another file put in its place.
func TestKeptFilesAreStamped(t *testing.T) {
	var read []string
	var mu sync.Mutex // workers keep files at once
	sum := sumFile
	defer func(s time.Duration) { sumFile, settle = sum, s }(settle)
	sumFile = func(p string) (cache.Sum, error) {
		mu.Lock()
		read = append(read, p)
		mu.Unlock()
		return sum(p)
	}
	settle = 0 // every stamp is saved, however young

	dir := extract(t, "testdata/site.txtar")
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": filepath.Join(t.TempDir(), "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(t, cfg, BuildOptions{})
	mustBuild(t, b)
	want := tree(t, cfg.Destination)
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
	sameTree(t, want, tree(t, cfg.Destination))

	// Changed in place, the same size: read, found changed, made again.
	data := []byte(strings.Repeat("x", len(want[filepath.FromSlash("sessions/alpha/2026-05-02-second-alpha-session-22222222/index.html")])))
	time.Sleep(20 * time.Millisecond) // past the file system's tick
	overwrite(t, page, data)
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
	sameTree(t, want, tree(t, cfg.Destination))

	// Stamps taken in the tick a file was written prove nothing: none is
	// saved, and the next build reads every file it keeps.
	settle = time.Hour
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
	sameTree(t, want, tree(t, cfg.Destination))
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
		if got := settled(c.mtime.UnixNano(), now); got != c.want {
			t.Errorf("settled(%v) at %v = %v, want %v", c.mtime, now, got, c.want)
		}
	}
}
