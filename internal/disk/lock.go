// Package disk holds what writing folders safely takes: a lock between
// processes, so that two builds of one destination or one cache take
// turns, and folders made once each.
package disk

import (
	"context"
	"os"
	"sync"
	"time"
)

// Lock is an exclusive lock on a file, between processes: two builds of
// one destination, or of one cache, take turns. The file exists only
// while the lock is held, so nothing is left beside a site.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock of the file at path, waiting for it while ctx
// lasts; wait, when set, is called once if it must wait.
func Acquire(ctx context.Context, path string, wait func()) (*Lock, error) {
	for waited := false; ; waited = true {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			// The holder before removes the file as it lets go: the lock
			// is only ours if the file locked is still the one at path.
			held, err1 := f.Stat()
			now, err2 := os.Stat(path)
			if err1 == nil && err2 == nil && os.SameFile(held, now) {
				return &Lock{f, path}, nil
			}
		}
		f.Close()
		if !ok && !waited && wait != nil {
			wait()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Release removes the file and lets the next build in.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		os.Remove(l.path)
		l.f.Close()
		l.f = nil
	}
}

// Dirs makes folders once each: thousands of files of a site or a cache
// share a few hundred folders, and asking the disk again costs a call each.
type Dirs struct{ made sync.Map }

// Make makes dir and its parents, unless it made them before.
func (d *Dirs) Make(dir string) error {
	if _, ok := d.made.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	d.made.Store(dir, true)
	return nil
}
