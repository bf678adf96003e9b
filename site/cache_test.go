package site

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// A damaged cache never reaches the site: the site's files are not the
// cache's, so damage to an entry leaves the live site as it was, and the
// next build checks every entry it uses, drops the damaged ones, says so
// and makes them again. Each way an entry is damaged here changed the
// site before: cut short, written over with random bytes of the same
// size, one bit flipped (in the files and in the table), made unreadable.
func TestDamagedCacheIsNotPublished(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cache := filepath.Join(t.TempDir(), "cache")
	build := func(dest string) *Report {
		t.Helper()
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": cache, "destination": dest}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBuilder(cfg, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := b.Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	live := filepath.Join(t.TempDir(), "public")
	build(live)
	want := treetest.Tree(t, live)
	if n := linkedFromCache(t, live, cache); n != 0 {
		t.Fatalf("%d files of the site are files of the cache", n)
	}

	entries := func() []string {
		var ps []string
		filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Dir(p) != cache { // not the table or the lock
				ps = append(ps, p)
			}
			return err
		})
		return ps
	}
	damage := map[string]func(t *testing.T, p string){
		"cut short": func(t *testing.T, p string) {
			if err := os.Truncate(p, 10); err != nil {
				t.Fatal(err)
			}
		},
		"random bytes": func(t *testing.T, p string) {
			fi, _ := os.Stat(p)
			junk := make([]byte, fi.Size())
			rand.Read(junk)
			treetest.Overwrite(t, p, junk)
		},
		"one bit": func(t *testing.T, p string) {
			data, _ := os.ReadFile(p)
			data[len(data)/2] ^= 1
			treetest.Overwrite(t, p, data)
		},
		"unreadable": func(t *testing.T, p string) {
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			ps := entries()
			if len(ps) == 0 {
				t.Fatal("no pack files")
			}
			for _, p := range ps {
				fn(t, p)
			}
			// The live site is untouched, its modes too.
			treetest.SameTree(t, want, treetest.Tree(t, live))
			filepath.WalkDir(live, func(p string, d fs.DirEntry, err error) error {
				if fi, err := d.Info(); err == nil && !d.IsDir() && fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: mode %v", p, fi.Mode())
				}
				return err
			})
			// A build that takes everything from the cache (a new
			// destination: no previous site to keep files from) finds
			// every damaged entry and makes the site whole.
			fresh := filepath.Join(t.TempDir(), "public")
			rep := build(fresh)
			readable := name == "unreadable" && os.Getuid() == 0 // root reads it all the same
			if !readable && (len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], "damaged entries were dropped and made again")) {
				t.Errorf("notices: %q", rep.Notices)
			}
			treetest.SameTree(t, want, treetest.Tree(t, fresh))
			build(live)
			treetest.SameTree(t, want, treetest.Tree(t, live))
		})
	}
	t.Run("table", func(t *testing.T) {
		p := filepath.Join(cache, "table")
		damage["one bit"](t, p)
		fresh := filepath.Join(t.TempDir(), "public")
		rep := build(fresh)
		if len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], "damaged entries were dropped and made again (table") {
			t.Errorf("notices: %q", rep.Notices)
		}
		treetest.SameTree(t, want, treetest.Tree(t, fresh))
	})
}

// A cache that cannot be written (a full disk) costs only speed: the
// site is the one a working cache gives, with no warning. Before, an
// image became an empty file, its session's exports went missing and
// its page a stand-in, with "(0 warnings)".
func TestUnwritableCache(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	img := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 20000)...) // in the blob store
	session := `{"parentUuid":null,"sessionId":"i1","type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` +
		base64.StdEncoding.EncodeToString(img) + `"}}]},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	treetest.WriteTree(t, dir, map[string][]byte{"content/img/i.jsonl": []byte(session)})
	build := func(cache string) (*Report, map[string][]byte) {
		t.Helper()
		dest := filepath.Join(t.TempDir(), "public")
		_, rep, err := build(t, dir, map[string]any{"cacheDir": cache, "destination": dest})
		if err != nil {
			t.Fatal(err)
		}
		return rep, treetest.Tree(t, dest)
	}
	good, want := build(t.TempDir())

	// The folder of packs is a file: no entry can be written, as on a
	// full disk.
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "packs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"cold", "again"} {
		rep, got := build(broken)
		if len(rep.Warnings) != len(good.Warnings) || len(rep.Notices) != 0 {
			t.Errorf("%s: warnings %v, notices %q", run, rep.Warnings, rep.Notices)
		}
		treetest.SameTree(t, want, got)
	}
}

// A session whose page cannot be made is a warning, which --strict
// counts: a stand-in page says why, and the other sessions build.
func TestFailedPageIsAWarning(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	treetest.WriteTree(t, dir, map[string][]byte{
		"templates/partials/msg-time.html": []byte(`{{ if eq .Page.Session.ID "22222222-bbbb-4000-8000-000000000002" }}{{ index .Page.Session.Turns 999 }}{{ end }}`),
	})
	cfg, rep, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, w := range rep.Warnings {
		found = found || w.File == "alpha/two.jsonl" && strings.Contains(w.Msg, "could not be made")
	}
	if !found {
		t.Errorf("no warning for the page that failed: %v", rep.Warnings)
	}
	if page := readFile(t, cfg.Destination, "sessions/alpha/2026-05-02-second-alpha-session-22222222/index.html"); !strings.Contains(page, "could not be rendered") {
		t.Errorf("the stand-in page does not say why:\n%s", page)
	}
}
