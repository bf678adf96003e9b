// Package cache is the build cache: a store of entries named by keys
// (hashes of what made them), the build id that every key of the program's
// output includes, and the codec that keeps parsed sessions in it. ingest
// keeps what files parse into there, and site what pages, exports and the
// search index are made of.
package cache

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/transcriptsite/transcriptsite/internal/disk"
)

// Store is the build cache: entries named by their key, in files under
// dir. It is safe for concurrent use and serves as the ingest cache.
// Small entries (hashes, lists, summaries: several per session) live in
// one table file, read when a build begins and written when it ends:
// creating a file costs more than writing a few hundred bytes.
//
// Nothing read from disk is used unchecked: the table carries a checksum
// of itself and the size and CRC-32C of every entry file, and an entry
// whose file no longer matches (cut short, overwritten, unreadable) is
// dropped, reported and made again. The site never shares a file with
// the cache: what a build takes from it is copied.
type Store struct {
	dir     string
	read    bool // false with --ignoreCache: only entries this build wrote are read
	mu      sync.Mutex
	wrote   map[string]bool   // entries this build wrote, while read is false
	made    map[string]bool   // entries this store wrote, for trim
	small   map[string][]byte // entries of at most smallEntry bytes
	sums    map[string]Sum    // what each entry file holds
	dirty   bool              // the table changed since it was written
	used    map[string]bool
	hits    int
	misses  int
	damaged []string    // entries found damaged since the last report
	dirs    disk.Dirs   // folders of entries made so far
	lock    *disk.Lock  // held while a build uses the store
	seen    os.FileInfo // the table file as last read or written
}

// Sum is what an entry's file must hold: its size and CRC-32C. It is
// kept in the table, apart from the file, so that a file cut short or
// written over cannot vouch for itself. A cheap check is enough: it guards
// against accidents (a full disk, a killed copy, an edit), not attackers,
// who could as well edit the site. A Sum is also a writer that sums what
// is written to it.
type Sum struct {
	Size int64
	CRC  uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (s *Sum) Write(p []byte) (int, error) {
	s.CRC = crc32.Update(s.CRC, castagnoli, p)
	s.Size += int64(len(p))
	return len(p), nil
}

// SumOf sums data.
func SumOf(data []byte) Sum {
	var s Sum
	s.Write(data)
	return s
}

// table is the store's table file: the small entries and the sums.
type table struct {
	Small map[string][]byte
	Sums  map[string]Sum
}

// smallEntry is the most an entry of the small table holds.
const smallEntry = 4 << 10

// lockFile is the file whose lock a build holds while it uses the store.
const lockFile = "lock"

// tableFile is the table's file in the store's dir (not a key, which is
// 64 hex digits in a folder of its first two). Its last four bytes are
// the CRC-32C of the rest.
const tableFile = "table.gob"

// New returns the store in dir. With read false (--ignoreCache) a build
// reads only the entries it wrote itself.
func New(dir string, read bool) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Store{dir: dir, read: read, used: map[string]bool{}, wrote: map[string]bool{}, made: map[string]bool{},
		small: map[string][]byte{}, sums: map[string]Sum{}}, nil
}

// Begin takes the store's lock for a build, and reads the table when
// another build wrote it since this store last did. What the build uses
// is counted from here, for GC and Trim.
func (s *Store) Begin(ctx context.Context, wait func()) error {
	lk, err := disk.Acquire(ctx, filepath.Join(s.dir, lockFile), wait)
	if err != nil {
		return err
	}
	s.lock = lk
	s.used = map[string]bool{}
	fi, err := os.Stat(filepath.Join(s.dir, tableFile))
	if s.read && err == nil && (s.seen == nil || !os.SameFile(fi, s.seen) || !fi.ModTime().Equal(s.seen.ModTime())) {
		s.load()
		s.seen = fi
	}
	return nil
}

// End writes the table and lets the next build in.
func (s *Store) End() {
	s.flush()
	s.lock.Release()
}

// load reads the table. A damaged table is an empty one: every entry
// file is then unchecked, so unused, and made again.
func (s *Store) load() {
	s.small, s.sums = map[string][]byte{}, map[string]Sum{}
	data, err := os.ReadFile(filepath.Join(s.dir, tableFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var t table
	if n := len(data) - 4; err != nil || n < 0 || crc32.Checksum(data[:n], castagnoli) != binary.BigEndian.Uint32(data[n:]) ||
		gob.NewDecoder(bytes.NewReader(data[:n])).Decode(&t) != nil {
		s.damaged = append(s.damaged, tableFile)
		s.dirty = true
		return
	}
	if t.Small != nil {
		s.small = t.Small
	}
	if t.Sums != nil {
		s.sums = t.Sums
	}
}

// flush writes the table, if it changed, whole or not at all.
func (s *Store) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty && writeWhole(filepath.Join(s.dir, tableFile), func(w io.Writer) error {
		var sm Sum
		if err := gob.NewEncoder(io.MultiWriter(w, &sm)).Encode(table{s.small, s.sums}); err != nil {
			return err
		}
		return binary.Write(w, binary.BigEndian, sm.CRC)
	}) {
		s.dirty = false
		s.seen, _ = os.Stat(filepath.Join(s.dir, tableFile))
	}
}

// Report says how many entries the build found and missed, and which it
// found damaged, since it was last called.
func (s *Store) Report() (hits, misses int, damaged []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hits, misses, damaged = s.hits, s.misses, s.damaged
	s.hits, s.misses, s.damaged = 0, 0, nil
	return hits, misses, damaged
}

func (s *Store) path(key string) string { return filepath.Join(s.dir, key[:2], key) }

// drop forgets the entry key, whose file is damaged, and removes the file.
func (s *Store) drop(key, why string) {
	os.Remove(s.path(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sums[key]; ok {
		delete(s.sums, key)
		s.dirty = true
		s.damaged = append(s.damaged, filepath.Join(key[:2], key)+": "+why)
	}
}

// Count records a hit or a miss.
func (s *Store) Count(hit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hit {
		s.hits++
	} else {
		s.misses++
	}
}

// Entry returns what the file of the entry key must hold, and marks the
// entry used; false when this build is not to read such a file.
func (s *Store) Entry(key string) (Sum, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used[key] = true
	want, ok := s.sums[key]
	return want, ok && (s.read || s.wrote[key])
}

// Open streams an entry from its file. What it reads is checked as it
// goes: a reader gives io.EOF only after the whole entry matched its sum,
// and errDamaged in its place when it did not, so a reader must be read
// to the end before what it gave is trusted.
func (s *Store) Open(key string) (io.ReadCloser, bool) {
	s.mu.Lock()
	_, small := s.small[key]
	s.mu.Unlock()
	if small {
		data, ok := s.Get(key)
		return io.NopCloser(bytes.NewReader(data)), ok
	}
	want, ok := s.Entry(key)
	if !ok {
		s.Count(false)
		return nil, false
	}
	f, err := os.Open(s.path(key))
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if err == nil && fi.Size() != want.Size {
		err = fmt.Errorf("%d bytes, not %d", fi.Size(), want.Size)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		s.drop(key, err.Error())
		s.Count(false)
		return nil, false
	}
	s.Count(true)
	return &checked{f: f, s: s, key: key, want: want}, true
}

// errDamaged is what a reader of a damaged entry gives at its end.
var errDamaged = errors.New("cache entry damaged: it does not match its checksum")

// checked reads an entry's file and checks it against its sum at the end.
type checked struct {
	f    *os.File
	s    *Store
	key  string
	want Sum
	got  Sum
}

func (c *checked) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.got.Write(p[:n])
	if err == io.EOF && c.got != c.want || err != nil && err != io.EOF {
		c.s.drop(c.key, errDamaged.Error())
		return n, errDamaged
	}
	return n, err
}

func (c *checked) Close() error { return c.f.Close() }

func (s *Store) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	s.used[key] = true
	data, ok := s.small[key]
	s.mu.Unlock()
	if !ok {
		if want, file := s.Entry(key); file {
			var err error
			if data, err = os.ReadFile(s.path(key)); err == nil && SumOf(data) != want {
				err = errDamaged
			}
			if ok = err == nil; !ok {
				s.drop(key, err.Error())
			}
		}
	}
	s.Count(ok)
	return data, ok
}

// PutBlob stores data under its sha256 and returns the key, or "" when it
// cannot. Blobs are read back whatever --ignoreCache says: they belong to
// this build.
func (s *Store) PutBlob(data []byte) string {
	key := Hash(data)
	s.mu.Lock()
	_, stored := s.sums[key] // by an earlier build
	s.mu.Unlock()
	if stored {
		s.Entry(key)
		return key
	}
	if !s.put(key, data) {
		return ""
	}
	return key
}

// OpenBlob opens what PutBlob stored.
func (s *Store) OpenBlob(key string) (io.ReadCloser, error) {
	r, ok := s.Open(key)
	if !ok {
		return nil, fmt.Errorf("%w (or damaged)", fs.ErrNotExist)
	}
	return r, nil
}

// Put stores an entry. The cache is an optimisation: a failed write (a
// full disk) is not an error of the build, which goes on without it.
func (s *Store) Put(key string, data []byte) { s.put(key, data) }

// put stores an entry, and reports whether it did.
func (s *Store) put(key string, data []byte) bool {
	s.mu.Lock()
	s.used[key] = true
	if len(data) <= smallEntry {
		s.small[key], s.dirty, s.made[key] = data, true, true
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	return s.write(key, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write stores the entry fn writes, streamed to its file, and reports
// whether it did.
func (s *Store) Write(key string, fn func(io.Writer) error) bool {
	s.mu.Lock()
	s.used[key] = true
	s.mu.Unlock()
	return s.write(key, fn)
}

// write writes an entry's file and records its sum.
func (s *Store) write(key string, fn func(io.Writer) error) bool {
	p := s.path(key)
	var sm Sum
	if s.dirs.Make(filepath.Dir(p)) != nil || !writeWhole(p, func(w io.Writer) error { return fn(io.MultiWriter(w, &sm)) }) {
		return false
	}
	s.mu.Lock()
	s.sums[key], s.dirty, s.made[key] = sm, true, true
	if !s.read {
		s.wrote[key] = true
	}
	s.mu.Unlock()
	return true
}

// writeWhole writes the file p as fn writes it, whole or not at all: into
// a temporary file renamed over p. It reports whether it did.
func writeWhole(p string, fn func(io.Writer) error) bool {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return false
	}
	bw := bufio.NewWriterSize(tmp, 64<<10)
	werr := fn(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}

// Trim removes the entries this store wrote that the last build did not
// use: a builder that builds again and again (serve) as a session grows
// would otherwise keep every version of it. Entries other builds wrote
// are left to --gc.
func (s *Store) Trim() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.made {
		if s.used[key] {
			continue
		}
		delete(s.made, key)
		if _, ok := s.small[key]; ok {
			delete(s.small, key)
		} else {
			delete(s.sums, key)
			os.Remove(s.path(key))
		}
		s.dirty = true
	}
}

// GC removes the entries the last build did not use, and returns how many.
func (s *Store) GC() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key := range s.small {
		if !s.used[key] {
			delete(s.small, key)
			s.dirty = true
			n++
		}
	}
	for key := range s.sums {
		if !s.used[key] {
			delete(s.sums, key)
			s.dirty = true
		}
	}
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || s.used[d.Name()] || filepath.Dir(p) == s.dir { // the table and the lock
			return err
		}
		n++
		return os.Remove(p)
	})
	return n, err
}
