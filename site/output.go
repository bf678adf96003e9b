package site

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// marker is the file every built site has at its root. Only a destination
// that has it (or is empty) is replaced, so a mistyped destination can never
// delete someone's files.
const marker = "sessions.json"

// output writes a site into a temporary directory beside its destination,
// then swaps it in, so a failed build leaves the previous site untouched.
type output struct {
	dest string
	tmp  string
	prev bool // dest holds a site built before
	dirs dirs
}

func newOutput(dest string) (*output, error) {
	if err := checkDest(dest); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".tmp-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	_, err = os.Stat(filepath.Join(dest, marker))
	return &output{dest: dest, tmp: tmp, prev: err == nil}, nil
}

// checkDest refuses to replace a directory that transcriptsite did not build.
func checkDest(dest string) error {
	entries, err := os.ReadDir(dest)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("destination %s: %w", dest, err)
	}
	if _, err := os.Stat(filepath.Join(dest, marker)); err != nil {
		return fmt.Errorf("destination %s is not empty and holds no %s, so transcriptsite did not build it; "+
			"it will not replace it: choose another destination or empty it", dest, marker)
	}
	return nil
}

// write writes data at the slash path rel inside the site.
func (o *output) write(rel string, data []byte) error {
	p, err := o.file(rel)
	if err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// create creates the file at the slash path rel inside the site, for what
// is too big to hold whole in memory (a session's exports). Its writes are
// buffered; Close flushes them.
func (o *output) create(rel string) (io.WriteCloser, error) {
	p, err := o.file(rel)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &bufferedFile{bufio.NewWriterSize(f, 64<<10), f}, nil
}

type bufferedFile struct {
	*bufio.Writer
	f *os.File
}

func (b *bufferedFile) Close() error {
	err := b.Flush()
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// keep links the previous site's file rel into the new site when it holds
// what want sums up, checked by reading it: a warm build of a large site
// reads its unchanged files, which costs a fraction of copying them from
// the cache. A file with other links (one an older version shared with
// the cache, or a user's backup) is not reused, so the site never shares
// a file with anything but the site it replaces, which is removed.
func (o *output) keep(rel string, want fileSum) bool {
	if !o.prev || inside(rel) != nil {
		return false
	}
	old := filepath.Join(o.dest, filepath.FromSlash(rel))
	f, err := os.Open(old)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != want.Size || nameCount(fi) != 1 {
		return false
	}
	var got summer
	if _, err := io.Copy(&got, f); err != nil || fileSum(got) != want {
		return false
	}
	p, err := o.file(rel)
	return err == nil && os.Link(old, p) == nil
}

func (o *output) remove(rel string) error {
	p, err := o.file(rel)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

func (o *output) open(rel string) (io.ReadCloser, error) {
	p, err := o.file(rel)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// file is the path of the slash path rel inside the site, its directory
// made. rel comes from URLs built from session data, so it is checked to
// stay inside the site.
func (o *output) file(rel string) (string, error) {
	if err := inside(rel); err != nil {
		return "", err
	}
	p := filepath.Join(o.tmp, filepath.FromSlash(rel))
	if err := o.dirs.make(filepath.Dir(p)); err != nil {
		return "", err
	}
	return p, nil
}

// dirs makes directories once each: thousands of files of a site or a
// cache share a few hundred, and asking the disk again costs a call each.
type dirs struct{ made sync.Map }

func (d *dirs) make(dir string) error {
	if _, ok := d.made.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	d.made.Store(dir, true)
	return nil
}

// inside checks that the slash path rel names a file inside the site.
func inside(rel string) error {
	if !fs.ValidPath(rel) || rel == "." {
		return fmt.Errorf("refusing to write %q: not a path inside the site", rel)
	}
	return nil
}

// commit replaces the destination with the new site.
func (o *output) commit() error {
	old := ""
	if _, err := os.Stat(o.dest); err == nil {
		old = o.tmp + ".old"
		if err := os.Rename(o.dest, old); err != nil {
			return fmt.Errorf("replace %s: %w", o.dest, err)
		}
	}
	if err := os.Rename(o.tmp, o.dest); err != nil {
		if old != "" {
			_ = os.Rename(old, o.dest)
		}
		return fmt.Errorf("replace %s: %w", o.dest, err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// abort removes the unfinished site.
func (o *output) abort() { _ = os.RemoveAll(o.tmp) }
