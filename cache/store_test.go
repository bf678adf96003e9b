package cache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Small entries live in one table, written after a build and read by the
// next; big ones in files. --ignoreCache reads neither from earlier builds,
// and gc drops what the last build did not use, from both.
func TestStoreSmallTable(t *testing.T) {
	dir := t.TempDir()
	key := func(c byte) string { return strings.Repeat(string(c), 64) }
	small, big := []byte("a content hash"), bytes.Repeat([]byte("x"), smallEntry+1)

	open := func(read bool) *Store {
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
	s := open(true)
	s.Put(key('a'), small)
	s.Put(key('b'), big)
	s.Put(key('c'), []byte("unused next time"))
	if _, err := os.Stat(s.path(key('a'))); err == nil {
		t.Error("a small entry got a file of its own")
	}
	if _, err := os.Stat(s.path(key('b'))); err != nil {
		t.Errorf("a big entry has no file: %v", err)
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
