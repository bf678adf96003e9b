package sink

import (
	"bytes"
	"encoding/gob"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
)

// A stamp is what a file of the site held when a build made or kept it,
// and how the file system saw it then: a file whose device, inode, size
// and modification time are still those is taken to hold the same, as
// make, rsync and git's index take it, and is kept without being read
// back. A rebuild with nothing changed read the whole previous site (142
// MB for the real sessions x20) to check what it kept: half its CPU.
type stamp struct {
	Dev, Ino uint64
	Mtime    int64 // nanoseconds
	Sum      cache.Sum
}

// settle is how old a file's modification time must be when its stamp is
// saved. The file system's clock ticks every few milliseconds, so a file
// changed in the tick that made it keeps its time: such a stamp proves
// nothing and is not saved (git calls these entries racily clean). A
// file system that keeps whole seconds (FAT, some network ones) ticks
// every second or two: a time of whole seconds must be two seconds old.
var settle = 50 * time.Millisecond

// settled reports whether a file's modification time mtime (nanoseconds)
// is old enough at now for its stamp to be saved.
func settled(mtime int64, now time.Time) bool {
	age := settle
	if mtime%int64(time.Second) == 0 {
		age = max(age, 2*time.Second)
	}
	return mtime < now.Add(-age).UnixNano()
}

// stamps are the destination's stamps: those the last build saved, and
// those of the files this build makes and keeps, by a hash of their path.
// The maps hold no pointers, so the collector does not scan them: the
// 1,000 generated sessions make a site of 5,555 files.
type stamps struct {
	was   map[uint64]stamp
	saved bool // the last build saved was
	mu    sync.Mutex
	now   map[uint64]stamp
}

// pathKey is the key of a file's stamp. Two paths with one hash could
// only swap stamps, and a stamp names its file's inode: the file of the
// other path is never taken for it.
func pathKey(rel string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, rel)
	return h.Sum64()
}

// stampsKey is the cache entry of the stamps of the site at dest.
func stampsKey(dest string) string {
	if abs, err := filepath.Abs(dest); err == nil {
		dest = abs
	}
	return cache.Key("stamps", dest)
}

// LoadStamps reads the stamps the last build of the site saved in st.
func (o *Dir) LoadStamps(st *cache.Store) {
	data, ok := st.Get(stampsKey(o.dest))
	if ok && gob.NewDecoder(bytes.NewReader(data)).Decode(&o.was) != nil {
		o.was, ok = nil, false
	}
	o.saved = ok
}

// SaveStamps saves in st the stamps of the files the build made and
// kept, for the next build to keep them without reading them.
func (o *Dir) SaveStamps(st *cache.Store) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	maps.DeleteFunc(o.now, func(_ uint64, s stamp) bool { return !settled(s.Mtime, now) })
	if o.saved && maps.Equal(o.now, o.was) {
		return // as saved: writing it again would write the cache's table
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(o.now) == nil {
		st.Put(stampsKey(o.dest), buf.Bytes())
	}
}

// made records that the file rel, just written, holds what sum sums up.
func (o *Dir) Made(rel string, sum cache.Sum) {
	fi, err := os.Lstat(filepath.Join(o.tmp, filepath.FromSlash(rel)))
	if err != nil || fi.Size() != sum.Size {
		return
	}
	if s, ok := stampOf(fi, sum); ok {
		o.kept(rel, s)
	}
}

// kept records the stamp of a file of the site.
func (o *Dir) kept(rel string, s stamp) {
	o.mu.Lock()
	if o.now == nil {
		o.now = map[uint64]stamp{}
	}
	o.now[pathKey(rel)] = s
	o.mu.Unlock()
}

// forget drops the stamp of the file rel, which is written anew (a
// session's page, say, replaced by one that says it failed).
func (o *Dir) forget(rel string) {
	o.mu.Lock()
	delete(o.now, pathKey(rel))
	o.mu.Unlock()
}

// sumFile sums the file at p; a test counts its calls.
var sumFile = func(p string) (cache.Sum, error) {
	var s cache.Sum
	f, err := os.Open(p)
	if err != nil {
		return s, err
	}
	defer f.Close()
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	_, err = io.CopyBuffer(&s, struct{ io.Reader }{f}, *buf) // not f's WriteTo, which makes a buffer a call
	return s, err
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}
