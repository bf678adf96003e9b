package site

import (
	"context"
	"os"
	"time"
)

// lock is an exclusive lock on a file, between processes: two builds of
// one destination, or of one cache, take turns. The file exists only
// while the lock is held, so nothing is left beside a site.
type lock struct {
	f    *os.File
	path string
}

// acquire takes the lock of the file at path, waiting for it while ctx
// lasts; wait, when set, is called once if it must wait.
func acquire(ctx context.Context, path string, wait func()) (*lock, error) {
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
				return &lock{f, path}, nil
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

// release removes the file and lets the next build in.
func (l *lock) release() {
	if l != nil && l.f != nil {
		os.Remove(l.path)
		l.f.Close()
		l.f = nil
	}
}
