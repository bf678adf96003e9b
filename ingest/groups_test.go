package ingest_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestReleasedGroupsLoadBack reads the shared corpus with every session
// held, and again through a cache that releases some or all of them: a
// session's header must be what the held session gives, and
// each group must load back exactly the held sessions, cold, warm, and
// with the cache's parsed files lost.
func TestReleasedGroupsLoadBack(t *testing.T) {
	held := loadCorpus(t)
	want := map[key]*transcript.Session{}
	for _, s := range held.Sessions {
		want[key{s.Source, s.ID}] = s
	}
	var size int64
	filepath.WalkDir(corpusDir, func(_ string, d fs.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	released, mixed, kept := &memCache{}, &memCache{}, &memCache{}
	for _, run := range []struct {
		name  string
		c     *memCache
		hold  int64
		lose  bool
		whole string // how many sessions keep their turns: "none", "some", "all"
	}{
		{"released cold", released, 0, false, "none"},
		{"released warm", released, 0, false, "none"},
		{"released lost", released, 0, true, "none"},
		{"half held cold", mixed, size / 2, false, "some"},
		{"half held warm", mixed, size / 2, false, "none"},
		{"held cold", kept, size, false, "all"},
		{"held warm", kept, size, false, "none"},
	} {
		res, err := ingest.LoadCached(context.Background(), ingest.Options{Cache: run.c, Release: true, Hold: run.hold}, ingest.Root{FS: os.DirFS(corpusDir)})
		if err != nil {
			t.Fatal(err)
		}
		if run.lose { // the cache loses every parsed file: they are read again
			ingest.LoseParsed(res, run.c)
		}
		if len(res.Headers) != len(held.Sessions) || len(res.Warnings) != len(held.Warnings) || res.Sessions != nil {
			t.Fatalf("%s: %d headers, %d warnings, %d whole; held: %d, %d", run.name, len(res.Headers), len(res.Warnings), len(res.Sessions), len(held.Sessions), len(held.Warnings))
		}
		n, whole := checkGroups(t, run.name, res, want)
		res.Drop() // what it held is read back from the cache
		for i, group := range res.Groups() {
			if full, err := res.Load(context.Background(), i); err != nil || len(full) != len(group) {
				t.Errorf("%s: group %d after Drop: %d sessions of %d, %v", run.name, i, len(full), len(group), err)
			}
		}
		if n != len(held.Sessions) {
			t.Errorf("%s: groups hold %d sessions of %d", run.name, n, len(held.Sessions))
		}
		// Whether held or released, a group's headers are kept for the
		// next load, which then needs none of its turns.
		for _, src := range ingest.UncachedGroups(res, run.c) {
			t.Errorf("%s: the headers of %s are not cached", run.name, src)
		}
		if got := map[bool]string{true: "none", false: map[bool]string{true: "all", false: "some"}[whole == n]}[whole == 0]; got != run.whole {
			t.Errorf("%s: %d of %d sessions kept their turns, want %s", run.name, whole, n, run.whole)
		}
	}
}

type key struct{ source, id string }

// checkGroups checks that each group of res loads back the sessions
// want has, and that their headers are theirs; it returns how many
// sessions the groups have, and how many of them they held.
func checkGroups(t *testing.T, name string, res *ingest.Result, want map[key]*transcript.Session) (n, whole int) {
	t.Helper()
	for i, group := range res.Groups() {
		inMemory := res.Held(i)
		full, err := res.Load(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for j, h := range group {
			n++
			s := h.Session
			w := want[key{s.Source, s.ID}]
			switch {
			case w == nil:
				t.Errorf("%s: %s %s was not read when sessions were held", name, s.Source, s.ID)
			case s.Turns != nil:
				t.Errorf("%s: the header of %s has turns", name, s.Source)
			case !reflect.DeepEqual(h, w.Header()):
				t.Errorf("%s: %s: header %+v, held %+v", name, s.Source, h, w.Header())
			case !reflect.DeepEqual(full[j], w):
				t.Errorf("%s: %s %s loads back different from when it was held", name, s.Source, s.ID)
			}
			if inMemory {
				whole++
			}
		}
	}
	return n, whole
}
