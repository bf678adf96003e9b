package cache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Small entries live in one table, written after a build and read by the
// next; big ones in pack files. --ignoreCache reads neither from earlier builds,
// and gc drops what the last build did not use, from both.
func TestStoreSmallTable(t *testing.T) {
	dir := t.TempDir()
	key := func(c byte) string { return strings.Repeat(string(c), 64) }
	small, big := []byte("a content hash"), bytes.Repeat([]byte("x"), smallEntry+1)

	open := func(read bool) *Store { return openStore(t, dir, read) }
	s := open(true)
	s.Put(key('a'), small)
	s.Put(key('b'), big)
	s.Put(key('c'), []byte("unused next time"))
	if _, ok := s.locs[key('a')]; ok {
		t.Error("a small entry went to a pack")
	}
	if l, ok := s.locs[key('b')]; !ok {
		t.Error("a big entry is in no pack")
	} else if _, err := os.Stat(filepath.Join(dir, packDir, l.Pack)); err != nil {
		t.Errorf("a big entry's pack: %v", err)
	}
	s.End()

	ignoring := open(false)
	if _, ok := ignoring.Get(key('a')); ok {
		t.Error("--ignoreCache read a small entry of an earlier build")
	}

	ignoring.lock.Release()
	s = open(true)
	for c, want := range map[byte][]byte{'a': small, 'b': big} {
		if got, ok := s.Get(key(c)); !ok || !bytes.Equal(got, want) {
			t.Errorf("entry %c after reopening: %d bytes, %v", c, len(got), ok)
		}
	}
	if r, ok := s.Open(key('a')); !ok {
		t.Error("Open misses a small entry")
	} else {
		r.Close()
	}
	if _, err := s.GC(); err != nil {
		t.Fatal(err)
	}
	s.End()
	s = open(true)
	if _, ok := s.Get(key('c')); ok {
		t.Error("gc kept a small entry the build did not use")
	}
	if _, ok := s.Get(key('a')); !ok {
		t.Error("gc dropped a small entry the build used")
	}
	if _, err := os.Stat(filepath.Join(dir, tableFile)); err != nil {
		t.Errorf("gc removed the table: %v", err)
	}
}

// Big entries are appended to a few pack files, a site's file and its
// entry written in one pass (Tee); the entries a build stops using are
// dropped (Trim, as serve does after each build), and a pack mostly
// dropped is copied, its live entries only, into a new one.
func TestStorePacks(t *testing.T) {
	dir := t.TempDir()
	key := func(c byte) string { return strings.Repeat(string(c), 64) }
	entry := func(c byte) []byte { return bytes.Repeat([]byte{c}, smallEntry+100) }
	s, err := New(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	begin := func() {
		t.Helper()
		if err := s.Begin(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	packs := func() []string {
		ps, _ := filepath.Glob(filepath.Join(dir, packDir, "*"))
		return ps
	}
	begin()
	for _, c := range []byte("abc") {
		s.Put(key(c), entry(c))
	}
	var site bytes.Buffer
	if err := s.Tee(key('d'), &site, func(w io.Writer) error { _, err := w.Write(entry('d')); return err }); err != nil || !bytes.Equal(site.Bytes(), entry('d')) {
		t.Fatalf("tee: %v, %d bytes", err, site.Len())
	}
	failed := errors.New("the page failed")
	if err := s.Tee(key('e'), io.Discard, func(w io.Writer) error {
		w.Write(entry('e'))
		return failed
	}); err != failed {
		t.Errorf("tee of a failing writer: %v", err)
	}
	s.Put(key('f'), entry('f')) // where e's bytes were cut off
	s.End()
	if n := len(packs()); n != 1 {
		t.Errorf("%d packs, want 1", n)
	}

	begin()
	for _, c := range []byte("abcdf") {
		if got, ok := s.Get(key(c)); !ok || !bytes.Equal(got, entry(c)) {
			t.Errorf("entry %c: %d bytes, %v", c, len(got), ok)
		}
	}
	if _, ok := s.Get(key('e')); ok {
		t.Error("the entry of a failed write was kept")
	}
	s.End()

	begin()
	s.Get(key('a'))
	s.Trim()
	s.End()
	if ps := packs(); len(ps) != 1 {
		t.Errorf("after trim: packs %v", ps)
	} else if fi, _ := os.Stat(ps[0]); fi.Size() != s.locs[key('a')].Packed {
		t.Errorf("the compacted pack holds %d bytes, want the one entry left (%d)", fi.Size(), s.locs[key('a')].Packed)
	}
	begin()
	if got, ok := s.Get(key('a')); !ok || !bytes.Equal(got, entry('a')) {
		t.Errorf("the entry left after trim: %d bytes, %v", len(got), ok)
	}
	if _, ok := s.Get(key('b')); ok {
		t.Error("trim kept an entry the build did not use")
	}
	// A file of an earlier version of the cache, an entry per file, goes
	// with --gc.
	old := filepath.Join(dir, "ab", key('x'))
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.WriteFile(old, entry('x'), 0o644)
	if _, err := s.GC(); err != nil {
		t.Fatal(err)
	}
	s.End()
	if _, err := os.Stat(old); err == nil {
		t.Error("gc kept a file of the old layout")
	}
	if len(packs()) != 1 {
		t.Errorf("gc: packs %v", packs())
	}
}

// Packed entries are compressed and come back whole; an entry an older
// build wrote uncompressed (no Packed size in the table) is still read;
// one whose compressed bytes were damaged is dropped, not returned.
func TestStoreCompresses(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	page := bytes.Repeat([]byte(`<span class="row"><span class="ln">1</span>x := 1</span>`+"\n"), 2000)
	if err := s.Begin(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s.Put("page", page)
	s.End()
	l := s.locs["page"]
	if l.Packed == 0 || l.Packed*4 > l.Size || l.Size != int64(len(page)) {
		t.Fatalf("a %d-byte page fills %d bytes of its pack (size %d)", len(page), l.Packed, l.Size)
	}
	if err := s.Begin(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get("page"); !ok || !bytes.Equal(got, page) {
		t.Errorf("read back %d bytes, %v", len(got), ok)
	}
	s.End()

	// As an older build left it: the page whole, in a pack of its own.
	raw := filepath.Join(dir, packDir, "old.pack")
	if err := os.WriteFile(raw, page, 0o600); err != nil {
		t.Fatal(err)
	}
	s.locs["old"] = loc{Pack: "old.pack", Sum: SumOf(page)}
	if err := s.Begin(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get("old"); !ok || !bytes.Equal(got, page) {
		t.Errorf("an uncompressed entry read back as %d bytes, %v", len(got), ok)
	}
	s.End()

	f, err := os.OpenFile(filepath.Join(dir, packDir, l.Pack), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("XXXX"), l.Off+l.Packed/2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := s.Begin(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get("page"); ok {
		t.Errorf("a damaged entry was read: %d bytes", len(got))
	}
	if _, _, damaged := s.Report(); len(damaged) != 1 {
		t.Errorf("damaged entries reported: %v", damaged)
	}
	s.End()
}

// What Tee is given as a string (templates write strings) reaches both
// writers whole and is not copied on the way.
func TestTeeWriteString(t *testing.T) {
	var file, entry strings.Builder
	tw := tee{&file, &softWriter{w: &entry}}
	io.WriteString(tw, "<p>a page</p>")
	tw.Write([]byte("\n"))
	if file.String() != "<p>a page</p>\n" || entry.String() != file.String() {
		t.Errorf("file %q, entry %q", file.String(), entry.String())
	}
	var w io.Writer = tee{io.Discard, &softWriter{w: io.Discard}}
	s := strings.Repeat("x", 10000)
	if n := testing.AllocsPerRun(100, func() { io.WriteString(w, s) }); n != 0 {
		t.Errorf("a string written allocates %v times", n)
	}
}

// A blob is stored once: put again, by this build or a later one, it is
// found by its content and not written again, unless the build reads no
// earlier entry (--ignoreCache) or its pack is gone, which is reported.
// Each way it reads back.
func TestPutBlobStoresOnce(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("a search shard "), 200) // packed, not small
	packed := func() int64 {
		var n int64
		entries, _ := os.ReadDir(filepath.Join(dir, packDir))
		for _, e := range entries {
			fi, _ := e.Info()
			n += fi.Size()
		}
		return n
	}
	build := func(read bool, fn func(s *Store)) {
		t.Helper()
		s := openStore(t, dir, read)
		fn(s)
		r, err := s.OpenBlob(Hash(data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("the blob reads back as %d bytes: %v", len(got), err)
		}
		s.End()
	}
	put := func(s *Store) {
		if key := s.PutBlob(data); key != Hash(data) {
			t.Errorf("PutBlob gave %q", key)
		}
	}
	build(true, func(s *Store) { put(s); put(s) })
	once := packed()
	build(true, put)
	if packed() != once {
		t.Errorf("a later build stored the blob again: packs %d → %d bytes", once, packed())
	}
	build(false, put)
	if packed() == once {
		t.Error("with --ignoreCache the blob was not stored again")
	}
	os.RemoveAll(filepath.Join(dir, packDir))
	build(true, func(s *Store) {
		put(s)
		if _, _, damaged := s.Report(); len(damaged) != 1 || !strings.Contains(damaged[0], Hash(data)) {
			t.Errorf("a blob whose pack is gone is reported as %q", damaged)
		}
	})
}

// openStore opens the store in dir and begins a build with it.
func openStore(t *testing.T, dir string, read bool) *Store {
	t.Helper()
	s, err := New(dir, read)
	if err == nil {
		err = s.Begin(context.Background(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}
