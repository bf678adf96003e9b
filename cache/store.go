// Package cache is the build cache: a store of entries named by keys
// (hashes of what made them), the build id that every key of the program's
// output includes, and the codec that keeps parsed sessions in it. ingest
// keeps what files parse into there, and site what pages, exports and the
// search index are made of.
package cache

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/transcriptsite/transcriptsite/internal/disk"
)

// Store is the build cache: entries named by their key. It is safe for
// concurrent use and serves as the ingest cache. Small entries (hashes,
// lists, summaries: several per session) live in one table file, read
// when a build begins and written when it ends; the others are appended
// to pack files, a few per build, each entry at an offset the table
// records. Creating a file costs far more than writing a few hundred
// bytes, and on ext4 without a journal its cost grows with the files
// deleted in the last seconds: a file per entry (pages, exports, parsed
// files, search shards) took a third of a cold build's CPU.
//
// Nothing read from disk is used unchecked: the table carries a checksum
// of itself and the size and CRC-32C of every packed entry, and an entry
// that no longer matches (cut short, overwritten, unreadable) is dropped,
// reported and made again. The site never shares a file with the cache:
// what a build takes from it is copied.
type Store struct {
	dir     string
	read    bool // false with --ignoreCache: only entries this build wrote are read
	mu      sync.Mutex
	wrote   map[string]bool   // entries this build wrote, while read is false
	made    map[string]bool   // entries this store wrote, for trim
	small   map[string][]byte // entries of at most smallEntry bytes
	locs    map[string]loc    // where each packed entry is
	dirty   bool              // the table changed since it was written
	used    map[string]bool
	hits    int
	misses  int
	damaged []string            // entries found damaged since the last report
	packs   map[string]*os.File // packs open for reading, until End
	idle    []*pack             // this build's packs that no write is appending to
	shrunk  map[string]bool     // packs that entries were dropped from: End compacts them
	lock    *disk.Lock          // held while a build uses the store
	seen    os.FileInfo         // the table file as last read or written
}

// loc is where a packed entry is, and what it must hold.
type loc struct {
	Pack string // its file's name in packDir
	Off  int64
	Sum  // of what it holds
	// Packed is the bytes it fills in the pack, as an S2 stream; 0 for an
	// entry written whole by an older build.
	Packed int64
}

// pack is a pack file of this build that entries are appended to, one
// write at a time.
type pack struct {
	name    string
	f       *os.File
	size    int64 // what its entries fill
	pending int64 // what the write under way wrote past size
	bw      *bufio.Writer
	zw      *s2.Writer // compresses into bw
}

// Entries are compressed as they are written: most are HTML, Markdown and
// JSON, which S2 makes six to eight times smaller at over a GB a second,
// for less than it costs to write what it saves. In blocks of blockSize,
// so that a reader needs no more.
const blockSize = 256 << 10

var readers = sync.Pool{New: func() any { return s2.NewReader(nil, s2.ReaderMaxBlockSize(blockSize)) }}

// Sum is what an entry must hold: its size and CRC-32C. It is kept in
// the table, apart from the pack, so that a pack cut short or written
// over cannot vouch for itself. A cheap check is enough: it guards
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

// smallEntry is the most an entry of the small table holds. The table is
// in memory for the whole build: a group's summaries (3-4 KB, most of it
// gob's description of their types) kept there made it grow by 4 KB a
// session, 47 MB at 10,000 that every build held and read and wrote
// whole; in a pack they cost a read when a warm build needs them.
const smallEntry = 1 << 10

// lockFile is the file whose lock a build holds while it uses the store.
const lockFile = "lock"

// packDir is the folder of pack files in the store's dir.
const packDir = "packs"

// packLimit is the size past which a pack takes no more entries: a pack
// whose entries are mostly dropped is copied into a new one, which costs
// what its live entries weigh.
const packLimit = 256 << 20

// New returns the store in dir. With read false (--ignoreCache) a build
// reads only the entries it wrote itself.
func New(dir string, read bool) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Store{dir: dir, read: read, used: map[string]bool{}, wrote: map[string]bool{}, made: map[string]bool{},
		small: map[string][]byte{}, locs: map[string]loc{}, packs: map[string]*os.File{}, shrunk: map[string]bool{}}, nil
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

// End compacts the packs that entries were dropped from, writes the
// table and lets the next build in.
func (s *Store) End() {
	s.closePacks()
	if len(s.shrunk) > 0 {
		s.compact()
		s.closePacks()
	}
	s.flush()
	s.lock.Release()
}

// closePacks closes the packs open for reading and writing, and removes
// those of this build that took no entry.
func (s *Store) closePacks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.packs {
		f.Close()
	}
	for _, pk := range s.idle {
		if pk.size == 0 {
			os.Remove(pk.f.Name())
		}
	}
	s.packs, s.idle = map[string]*os.File{}, nil
}

// load reads the table. A damaged table is an empty one: every entry
// file is then unchecked, so unused, and made again.
func (s *Store) load() {
	s.small, s.locs = map[string][]byte{}, map[string]loc{}
	data, err := os.ReadFile(filepath.Join(s.dir, tableFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	small, locs, derr := decodeTable(data)
	if err != nil || derr != nil {
		s.damaged = append(s.damaged, tableFile)
		s.dirty = true
		return
	}
	s.small, s.locs = small, locs
}

// flush writes the table, if it changed, whole or not at all.
func (s *Store) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty && writeWhole(filepath.Join(s.dir, tableFile), func(w io.Writer) error {
		_, err := w.Write(encodeTable(s.small, s.locs))
		return err
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

// drop forgets the entry key, which is damaged.
func (s *Store) drop(key, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.locs[key]; ok {
		delete(s.locs, key)
		s.dirty, s.shrunk[l.Pack] = true, true
		s.damaged = append(s.damaged, fmt.Sprintf("%s (in %s): %s", key, filepath.Join(packDir, l.Pack), why))
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

// Entry returns what the entry key must hold, and marks the entry used;
// false when the store has no such entry or this build is not to read it.
func (s *Store) Entry(key string) (Sum, bool) {
	s.mu.Lock()
	data, small := s.small[key]
	if small {
		s.used[key] = true
	}
	s.mu.Unlock()
	if small {
		return SumOf(data), true
	}
	l, ok := s.entry(key)
	return l.Sum, ok
}

// Made returns what the entry key holds when this build packed it.
func (s *Store) Made(key string) (Sum, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.locs[key]
	return l.Sum, ok && s.made[key]
}

func (s *Store) entry(key string) (loc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used[key] = true
	l, ok := s.locs[key]
	return l, ok && (s.read || s.wrote[key])
}

// Open streams an entry. What it reads is checked as it goes: a reader
// gives io.EOF only after the whole entry matched its sum, and errDamaged
// in its place when it did not, so a reader must be read to the end
// before what it gave is trusted.
func (s *Store) Open(key string) (io.ReadCloser, bool) {
	s.mu.Lock()
	_, small := s.small[key]
	s.mu.Unlock()
	if small {
		data, ok := s.Get(key)
		return io.NopCloser(bytes.NewReader(data)), ok
	}
	l, ok := s.entry(key)
	var r io.ReadCloser
	if ok {
		var err error
		if r, err = s.section(key, l); err != nil {
			s.drop(key, err.Error())
			ok = false
		}
	}
	s.Count(ok)
	return r, ok
}

// section reads the packed entry key, which is at l, checked as Open says.
func (s *Store) section(key string, l loc) (io.ReadCloser, error) {
	f, err := s.packFile(l.Pack)
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	n := cmp.Or(l.Packed, l.Size)
	if err == nil && fi.Size() < l.Off+n {
		err = fmt.Errorf("its pack holds %d bytes, not %d", fi.Size(), l.Off+n)
	}
	if err != nil {
		return nil, err
	}
	var r io.Reader = io.NewSectionReader(f, l.Off, n)
	var zr *s2.Reader
	if l.Packed > 0 {
		zr = readers.Get().(*s2.Reader)
		zr.Reset(r)
		r = zr
	}
	return &checked{r: r, zr: zr, s: s, key: key, want: l.Sum}, nil
}

// packFile opens a pack for reading, once a build.
func (s *Store) packFile(name string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.packs[name]; f != nil {
		return f, nil
	}
	f, err := os.Open(filepath.Join(s.dir, packDir, name))
	if err != nil {
		return nil, err
	}
	s.packs[name] = f
	return f, nil
}

// errDamaged is what a reader of a damaged entry gives at its end.
var errDamaged = errors.New("cache entry damaged: it does not match its checksum")

// checked reads an entry and checks it against its sum at the end.
type checked struct {
	r    io.Reader
	zr   *s2.Reader // the decompressor r reads through, if any
	s    *Store
	key  string
	want Sum
	got  Sum
}

func (c *checked) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.got.Write(p[:n])
	if err == io.EOF && c.got != c.want || err != nil && err != io.EOF {
		c.s.drop(c.key, errDamaged.Error())
		return n, errDamaged
	}
	return n, err
}

// Close lets the decompressor serve another entry; the pack stays open
// for the rest of the build.
func (c *checked) Close() error {
	if c.zr != nil {
		c.zr.Reset(nil)
		readers.Put(c.zr)
		c.zr, c.r = nil, bytes.NewReader(nil)
	}
	return nil
}

func (s *Store) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	s.used[key] = true
	data, ok := s.small[key]
	s.mu.Unlock()
	if !ok {
		if r, packed := s.Open(key); packed {
			var err error
			data, err = io.ReadAll(r)
			r.Close()
			ok = err == nil
		}
		return data, ok
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
	l, packed := s.locs[key] // by an earlier build
	_, small := s.small[key]
	readable := s.read || s.wrote[key]
	if readable && (packed || small) {
		s.used[key] = true
	}
	s.mu.Unlock()
	if readable && small {
		return key
	}
	if readable && packed {
		_, err := s.packFile(l.Pack) // and its pack still there
		if err == nil {
			return key
		}
		s.drop(key, err.Error())
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

// Write stores the entry fn writes, streamed to a pack, and reports
// whether it did.
func (s *Store) Write(key string, fn func(io.Writer) error) bool {
	s.mu.Lock()
	s.used[key] = true
	s.mu.Unlock()
	return s.write(key, fn)
}

// Tee writes what fn writes to w and, as the entry key, to the store: one
// pass for a file of the site and its copy in the cache. The entry is
// kept when fn succeeds and all it wrote reached the store; the store's
// failures never fail fn. It returns fn's error.
func (s *Store) Tee(key string, w io.Writer, fn func(io.Writer) error) error {
	s.mu.Lock()
	s.used[key] = true
	s.mu.Unlock()
	pk := s.take()
	if pk == nil {
		return fn(w)
	}
	var err error
	s.append(pk, key, func(cw io.Writer) error {
		sw := &softWriter{w: cw}
		err = fn(tee{w, sw})
		return cmp.Or(err, sw.err)
	})
	return err
}

// softWriter writes to w until a write fails, and then drops what it is
// given: it never fails the writer it is teed from.
type softWriter struct {
	w   io.Writer
	err error
}

func (s *softWriter) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
	return len(p), nil
}

func (s *softWriter) WriteString(p string) (int, error) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, p)
	}
	return len(p), nil
}

// tee writes to w, and what w took to soft. Unlike io.MultiWriter's, its
// WriteString makes no copy of what it is given.
type tee struct {
	w    io.Writer
	soft *softWriter
}

func (t tee) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.soft.Write(p[:n])
	return n, err
}

func (t tee) WriteString(s string) (int, error) {
	n, err := io.WriteString(t.w, s)
	t.soft.WriteString(s[:n])
	return n, err
}

// write stores the entry fn writes in a pack, and reports whether it did.
func (s *Store) write(key string, fn func(io.Writer) error) bool {
	pk := s.take()
	return pk != nil && s.append(pk, key, fn)
}

// take returns a pack of this build that no write is appending to, a new
// one when there is none; nil when none can be made.
func (s *Store) take() *pack {
	s.mu.Lock()
	if n := len(s.idle); n > 0 {
		pk := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		return pk
	}
	s.mu.Unlock()
	dir := filepath.Join(s.dir, packDir)
	if os.MkdirAll(dir, 0o755) != nil {
		return nil
	}
	f, err := os.CreateTemp(dir, "*.pack")
	if err != nil {
		return nil
	}
	pk := &pack{name: filepath.Base(f.Name()), f: f}
	pk.bw = bufio.NewWriterSize(&atWriter{pk}, 64<<10)
	pk.zw = s2.NewWriter(pk.bw, s2.WriterConcurrency(1), s2.WriterBlockSize(blockSize))
	s.mu.Lock()
	s.packs[pk.name] = f
	s.mu.Unlock()
	return pk
}

// atWriter appends to a pack at its end: at the offset after its last
// entry and what was written of the one under way.
type atWriter struct{ pk *pack }

func (w *atWriter) Write(p []byte) (int, error) {
	n, err := w.pk.f.WriteAt(p, w.pk.size+w.pk.pending)
	w.pk.pending += int64(n)
	return n, err
}

// append appends the entry fn writes to pk and records it, or cuts off
// what it wrote of it; then gives pk back for other writes. It reports
// whether the entry was stored.
func (s *Store) append(pk *pack, key string, fn func(io.Writer) error) bool {
	var sm Sum
	pk.zw.Reset(pk.bw)
	// Templates write strings: buffered, they are copied, where the
	// compressor and the sum, which take bytes, had each made a copy.
	ew := entryBufs.Get().(*bufio.Writer)
	ew.Reset(io.MultiWriter(pk.zw, &sm))
	err := fn(ew)
	if err == nil {
		err = ew.Flush()
	}
	ew.Reset(nil)
	entryBufs.Put(ew)
	if err == nil {
		err = pk.zw.Close() // ends the stream, not bw
	}
	if err == nil {
		err = pk.bw.Flush()
	}
	ok := err == nil
	if ok {
		s.mu.Lock()
		s.locs[key], s.dirty, s.made[key] = loc{Pack: pk.name, Off: pk.size, Sum: sm, Packed: pk.pending}, true, true
		if !s.read {
			s.wrote[key] = true
		}
		s.mu.Unlock()
		pk.size += pk.pending
	} else {
		pk.bw.Reset(&atWriter{pk})
		pk.f.Truncate(pk.size) // else the next entry writes over it
	}
	pk.pending = 0
	s.mu.Lock()
	if pk.size < packLimit {
		s.idle = append(s.idle, pk)
	}
	s.mu.Unlock()
	return ok
}

var entryBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

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
// are left to --gc. Their packs are compacted when the build ends.
func (s *Store) Trim() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.made {
		if !s.used[key] {
			delete(s.made, key)
			s.forget(key)
		}
	}
}

// forget removes the entry key from the table.
func (s *Store) forget(key string) {
	if l, ok := s.locs[key]; ok {
		delete(s.locs, key)
		s.shrunk[l.Pack] = true
	}
	delete(s.small, key)
	s.dirty = true
}

// GC removes the entries the last build did not use, and the files of
// the cache that hold none: packs, and the files of earlier versions of
// the cache (or of builds killed before they wrote the table). It
// returns how many entries and files it removed.
func (s *Store) GC() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range []map[string]bool{keys(s.small), keys(s.locs)} {
		for key := range m {
			if !s.used[key] {
				s.forget(key)
				n++
			}
		}
	}
	inUse := map[string]bool{}
	for _, l := range s.locs {
		inUse[l.Pack] = true
	}
	for _, pk := range s.idle {
		inUse[pk.name] = true // this build's, which may yet take entries
	}
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(p) == s.dir { // the table and the lock
			return err
		}
		if filepath.Dir(p) == filepath.Join(s.dir, packDir) && inUse[d.Name()] {
			return nil
		}
		n++
		return os.Remove(p)
	})
	return n, err
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// compact removes the packs that entries were dropped from and that hold
// none now, and copies the entries of those that are mostly dropped into
// a new pack, to remove them too. It runs when a build ends, with no
// write under way.
func (s *Store) compact() {
	s.mu.Lock()
	shrunk := s.shrunk
	s.shrunk = map[string]bool{}
	live := map[string]int64{}
	held := map[string][]string{}
	for key, l := range s.locs {
		if shrunk[l.Pack] {
			live[l.Pack] += cmp.Or(l.Packed, l.Size)
			held[l.Pack] = append(held[l.Pack], key)
		}
	}
	s.mu.Unlock()
	for name := range shrunk {
		p := filepath.Join(s.dir, packDir, name)
		fi, err := os.Stat(p)
		if err != nil || 2*live[name] >= fi.Size() {
			continue
		}
		left := false
		for _, key := range held[name] {
			r, err := s.section(key, s.locs[key])
			if err != nil {
				s.drop(key, err.Error())
				continue
			}
			left = !s.write(key, func(w io.Writer) error {
				_, err := io.Copy(w, r)
				return err
			}) || left
		}
		if !left {
			os.Remove(p)
		}
	}
}
