package site

import (
	"bytes"
	"encoding/gob"
	"io"
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
// nothing and is not saved (git calls these entries racily clean).
var settle = 50 * time.Millisecond

// stamps are the destination's stamps: those the last build saved, and
// those of the files this build makes and keeps.
type stamps struct {
	was   map[string]stamp
	mu    sync.Mutex
	fresh map[string]cache.Sum // made by this build: stamped once done
	held  map[string]stamp     // kept by this build, stamped as they were
}

// stampsKey is the cache entry of the stamps of the site at dest.
func stampsKey(dest string) string {
	if abs, err := filepath.Abs(dest); err == nil {
		dest = abs
	}
	return cache.Key("stamps", dest)
}

// loadStamps reads the stamps the last build of the site saved in st.
func (o *destination) loadStamps(st *cache.Store) {
	if data, ok := st.Get(stampsKey(o.dest)); ok && gob.NewDecoder(bytes.NewReader(data)).Decode(&o.was) != nil {
		o.was = nil
	}
}

// saveStamps saves in st the stamps of the files the build made and
// kept, for the next build to keep them without reading them.
func (o *destination) saveStamps(st *cache.Store) {
	o.mu.Lock()
	defer o.mu.Unlock()
	all := make(map[string]stamp, len(o.held)+len(o.fresh))
	settled := time.Now().Add(-settle).UnixNano()
	keep := func(rel string, s stamp) {
		if s.Mtime < settled {
			all[rel] = s
		}
	}
	for rel, s := range o.held {
		keep(rel, s)
	}
	for rel, sum := range o.fresh {
		if fi, err := os.Lstat(filepath.Join(o.tmp, filepath.FromSlash(rel))); err == nil && fi.Size() == sum.Size {
			if s, ok := stampOf(fi, sum); ok {
				keep(rel, s)
			}
		}
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(all) == nil {
		st.Put(stampsKey(o.dest), buf.Bytes())
	}
}

// made records that the file rel holds what sum sums up.
func (o *destination) made(rel string, sum cache.Sum) {
	o.mu.Lock()
	if o.fresh == nil {
		o.fresh = map[string]cache.Sum{}
	}
	o.fresh[rel] = sum
	o.mu.Unlock()
}

// forget drops what was recorded of the file rel, which is written anew
// (a session's page, say, replaced by one that says it failed).
func (o *destination) forget(rel string) {
	o.mu.Lock()
	delete(o.fresh, rel)
	delete(o.held, rel)
	o.mu.Unlock()
}

// kept records the stamp of a file kept from the previous site.
func (o *destination) kept(rel string, s stamp) {
	o.mu.Lock()
	if o.held == nil {
		o.held = map[string]stamp{}
	}
	o.held[rel] = s
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
