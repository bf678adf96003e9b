package site

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/ingest"
)

// store is the build cache: entries named by their key, in files under dir,
// and, for a long-lived builder (serve), in memory too. It is safe for
// concurrent use and serves as the ingest cache. Small entries (hashes,
// lists, summaries: several per session) live in one table file, loaded
// when the store opens and written after each build: creating a file
// costs more than writing a few hundred bytes.
type store struct {
	dir    string
	read   bool // false with --ignoreCache: only entries this build wrote are read
	mu     sync.Mutex
	wrote  map[string]bool   // entries this build wrote, while read is false
	mem    map[string][]byte // nil unless kept in memory
	small  map[string][]byte // entries of at most smallEntry bytes
	dirty  bool              // small changed since it was written
	used   map[string]bool
	hits   int
	misses int
	dirs   dirs // folders of entries made so far
}

// smallEntry is the most an entry of the small table holds.
const smallEntry = 4 << 10

// smallTable is the small table's file in the store's dir: not a key, which
// is 64 hex digits in a folder of its first two.
const smallTable = "small.gob"

func openStore(dir string, read, memory bool) (*store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &store{dir: dir, read: read, used: map[string]bool{}, wrote: map[string]bool{}, small: map[string][]byte{}}
	if memory {
		s.mem = map[string][]byte{}
	}
	if read {
		if f, err := os.Open(filepath.Join(dir, smallTable)); err == nil {
			if gob.NewDecoder(bufio.NewReader(f)).Decode(&s.small) != nil {
				s.small = map[string][]byte{} // a broken table is an empty one
			}
			f.Close()
		}
	}
	return s, nil
}

// flush writes the small table, if it changed, whole or not at all.
func (s *store) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty && writeWhole(filepath.Join(s.dir, smallTable), func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(s.small)
	}) {
		s.dirty = false
	}
}

func (s *store) path(key string) string { return filepath.Join(s.dir, key[:2], key) }

// Open streams an entry from its file; in memory it is Get.
func (s *store) Open(key string) (io.ReadCloser, bool) {
	s.mu.Lock()
	_, small := s.small[key]
	memory, read := s.mem != nil, s.read || s.wrote[key]
	s.mu.Unlock()
	if memory || !read || small {
		data, ok := s.Get(key)
		return io.NopCloser(bytes.NewReader(data)), ok
	}
	f, err := os.Open(s.path(key))
	s.mu.Lock()
	s.used[key] = true
	if err == nil {
		s.hits++
	} else {
		s.misses++
	}
	s.mu.Unlock()
	return f, err == nil
}

func (s *store) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	s.used[key] = true
	data, ok := s.small[key]
	if !ok {
		data, ok = s.mem[key]
	}
	read := s.read || s.wrote[key]
	s.mu.Unlock()
	if !ok && read {
		var err error
		data, err = os.ReadFile(s.path(key))
		ok = err == nil
		if ok && s.mem != nil {
			s.mu.Lock()
			s.mem[key] = data
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	if ok {
		s.hits++
	} else {
		s.misses++
	}
	s.mu.Unlock()
	return data, ok
}

// inMemory says whether entries are kept in memory (serve), not only in
// their files.
func (s *store) inMemory() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem != nil
}

// file returns the path of the file of an entry of a store on disk, for a
// build to link into the site instead of copying it; "" when there is no
// such entry or the store is not read.
func (s *store) file(key string) string {
	s.mu.Lock()
	s.used[key] = true
	read := s.read
	s.mu.Unlock()
	p := s.path(key)
	ok := false
	if read {
		_, err := os.Stat(p) // outside the lock: every worker asks
		ok = err == nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.misses++
		return ""
	}
	s.hits++
	return p
}

// adopt stores the file at src, which is never written again, as the
// entry key: linked where it can be, else copied. A store in memory reads
// it.
func (s *store) adopt(key, src string) {
	s.mu.Lock()
	memory := s.mem != nil
	s.used[key] = true
	s.mu.Unlock()
	if memory {
		if data, err := os.ReadFile(src); err == nil {
			s.Put(key, data)
		}
		return
	}
	p := s.path(key)
	if s.dirs.make(filepath.Dir(p)) != nil {
		return
	}
	tmp := filepath.Join(filepath.Dir(p), ".tmp-"+key)
	os.Remove(tmp) // left by a build that was killed: never written through
	if linkOrCopy(src, tmp) != nil || os.Rename(tmp, p) != nil {
		os.Remove(tmp)
	}
}

// PutBlob stores data under its sha256 and returns the key. Blobs are
// read back whatever --ignoreCache says: they belong to this build.
func (s *store) PutBlob(data []byte) string {
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:])
	if _, err := os.Stat(s.path(key)); err == nil && s.mem == nil {
		s.mu.Lock()
		s.used[key] = true // stored by an earlier build
		s.mu.Unlock()
		return key
	}
	s.Put(key, data)
	return key
}

// OpenBlob opens what PutBlob stored.
func (s *store) OpenBlob(key string) (io.ReadCloser, error) {
	s.mu.Lock()
	s.used[key] = true
	data, ok := s.mem[key]
	s.mu.Unlock()
	if ok {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	return os.Open(s.path(key))
}

// Put stores an entry. The cache is an optimisation: a failed write is
// not an error of the build.
func (s *store) Put(key string, data []byte) {
	s.mu.Lock()
	s.used[key] = true
	if len(data) <= smallEntry {
		s.small[key], s.dirty = data, true
		s.mu.Unlock()
		return
	}
	if s.mem != nil {
		s.mem[key] = data
	}
	s.mu.Unlock()
	s.write(key, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write stores the entry fn writes, streamed to its file unless the store
// is in memory.
func (s *store) Write(key string, fn func(io.Writer) error) {
	s.mu.Lock()
	memory := s.mem != nil
	s.mu.Unlock()
	if memory {
		var buf bytes.Buffer
		if fn(&buf) == nil {
			s.Put(key, buf.Bytes())
		}
		return
	}
	s.mu.Lock()
	s.used[key] = true
	s.mu.Unlock()
	s.write(key, fn)
}

// write writes an entry's file.
func (s *store) write(key string, fn func(io.Writer) error) {
	p := s.path(key)
	if s.dirs.make(filepath.Dir(p)) != nil || !writeWhole(p, fn) {
		return
	}
	s.mu.Lock()
	if !s.read {
		s.wrote[key] = true
	}
	s.mu.Unlock()
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

// gc removes the entries the last build did not use, and returns how many.
func (s *store) gc() (int, error) {
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
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || s.used[d.Name()] || p == filepath.Join(s.dir, smallTable) {
			return err
		}
		n++
		return os.Remove(p)
	})
	return n, err
}

// digest identifies a session's content without reading it again: the
// hashes of the files it was read from, and the links a reader's Merge may
// set from other files (see ingest.Reader.Merge). It is "" when a file's
// hash is unknown, and the session is then rendered every time.
func digest(s *Session, hashes map[string]string) string {
	parts := []string{"session", s.Format, s.ID, s.Title, s.ParentID, strings.Join(s.ChildIDs, "\x00")}
	for _, src := range append([]string{s.Source}, s.Sources...) {
		h, ok := hashes[src]
		if !ok {
			return ""
		}
		parts = append(parts, src, h)
	}
	for _, l := range s.summary.Subagents {
		parts = append(parts, l.CallID, l.Session)
	}
	return ingest.Key(parts...)
}

// hashFS hashes every file under root of fsys: the theme's templates and
// assets, whose change must re-render every page.
func hashFS(fsys fs.FS, roots ...string) (string, error) {
	h := sha256.New()
	for _, root := range roots {
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := fsys.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			io.WriteString(h, p+"\x00")
			_, err = io.Copy(h, f)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var _ ingest.Cache = (*store)(nil)
