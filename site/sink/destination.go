package sink

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/internal/disk"
)

// Marker is the file every built site has at its root. Only a destination
// that has it (or is empty) is replaced, so a mistyped destination can never
// delete someone's files.
const Marker = "sessions.json"

// Dir writes a site into a temporary directory beside its destination,
// then swaps it in, so a failed build leaves the previous site untouched.
// It holds the destination's lock from its start to its end: two builds
// of one destination take turns.
type Dir struct {
	dest string
	prev bool // dest holds a site built before
	lock *disk.Lock
	dirs disk.Dirs
	stamps

	// The new site is begun when the first file differs from the previous
	// site's; until then the files kept are only listed, so a rebuild
	// that changes nothing leaves the site as it was (the same files, the
	// same times, for rsync and git to find nothing new) instead of
	// making a copy of it: 242 folders and 1,173 links for the real
	// sessions x20, two thirds of such a build's time.
	tmpMu   sync.Mutex // guards what follows
	tmp     string     // the new site; "" until begun
	failed  error      // why it could not be begun
	pending []string   // files of the previous site kept before it was begun
}

// building is the file in a site being built that says transcriptsite is
// building it: the next build removes a temporary site left with it (or
// with the marker of a finished site) by a build that was killed.
const building = ".transcriptsite-building"

// OpenDir opens the destination dest for a build, waiting for another
// build of it to end (calling wait, when set, if it must) and mending what
// a killed build left beside it.
func OpenDir(ctx context.Context, dest string, wait func()) (o *Dir, err error) {
	parent, base := filepath.Dir(dest), filepath.Base(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	lk, err := disk.Acquire(ctx, filepath.Join(parent, "."+base+".lock"), wait)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dest, err)
	}
	defer func() {
		if err != nil {
			lk.Release()
		}
	}()
	if err := recoverOld(dest); err != nil {
		return nil, err
	}
	if err := checkDest(dest); err != nil {
		return nil, err
	}
	removeStale(parent, base)
	_, err = os.Stat(filepath.Join(dest, Marker))
	return &Dir{dest: dest, prev: err == nil, lock: lk}, nil
}

// begin begins the new site, once: a temporary folder beside the
// destination holding the files kept so far.
func (o *Dir) begin() error {
	o.tmpMu.Lock()
	defer o.tmpMu.Unlock()
	if o.tmp != "" || o.failed != nil {
		return o.failed
	}
	o.failed = o.start()
	return o.failed
}

func (o *Dir) start() error {
	parent, base := filepath.Dir(o.dest), filepath.Base(o.dest)
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return err
	}
	o.tmp = tmp
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, building), nil, 0o644); err != nil {
		return err
	}
	for _, rel := range o.pending {
		if err := o.link(rel); err != nil {
			return err
		}
	}
	o.pending = nil
	return nil
}

// link puts the previous site's file rel in the new site: linked, or
// copied where the file system has no links (exFAT, some network ones).
// It is called once the file has proved to hold what it should.
func (o *Dir) link(rel string) error {
	old := filepath.Join(o.dest, filepath.FromSlash(rel))
	p, err := o.path(rel)
	if err != nil || linkFile(old, p) == nil {
		return err
	}
	in, err := os.Open(old)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// unchanged reports whether the new site was never begun and the
// previous one holds exactly the files kept: then it is the new site.
func (o *Dir) unchanged() bool {
	o.tmpMu.Lock()
	defer o.tmpMu.Unlock()
	if o.tmp != "" || o.failed != nil || !o.prev {
		return false
	}
	files := 0
	err := filepath.WalkDir(o.dest, func(_ string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.Type().IsRegular():
			files++
		case !d.IsDir():
			return fs.ErrInvalid // a link or a device: not one of ours
		}
		return nil
	})
	kept := map[string]bool{}
	for _, rel := range o.pending {
		kept[rel] = true
	}
	return err == nil && files == len(kept)
}

// oldSite is where the swap without an atomic exchange puts the site it
// replaces, for the moment between its two renames.
func oldSite(dest string) string {
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".old")
}

// recoverOld puts back the previous site when a build was killed between
// the two renames of a swap without exchange, and else removes it.
func recoverOld(dest string) error {
	old := oldSite(dest)
	if fi, err := os.Lstat(old); err == nil && fi.IsDir() && os.Remove(old) == nil {
		return nil // empty: its removal was killed before its last step
	}
	if _, err := os.Stat(filepath.Join(old, Marker)); err != nil {
		return nil // none, or not a site we made: left alone
	}
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(old, dest)
	}
	return removeSite(old)
}

// linkFile links a file; a test fails it, as a file system without links.
var linkFile = os.Link

// removeEntry removes one entry of a site being removed; a test stops it
// part way, as a kill would.
var removeEntry = os.RemoveAll

// removeSite removes a folder that holds a site of ours, built or being
// built, with its markers last: a build killed while removing it leaves a
// folder that still has a marker, or an empty one, which the next build
// removes (removeStale, recoverOld). Removed whole at once, the marker
// could go first and the rest stay for good.
func removeSite(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, last := range []bool{false, true} {
		for _, e := range entries {
			if n := e.Name(); (n == Marker || n == building) != last {
				continue
			}
			if err := removeEntry(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return removeEntry(dir)
}

// removeStale removes the temporary sites that killed builds of dest left
// beside it. Only folders with the name of one and the marker of one
// (building, or a finished site's) are removed, never a user's folder;
// the lock says no other build of dest is writing one. An empty one goes
// too: a build killed before it wrote the marker leaves that, and an
// empty folder holds nothing to lose.
func removeStale(parent, base string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "."+base+".tmp-*"))
	for _, dir := range stale {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue // a user's file, not a site
		}
		if os.Remove(dir) == nil { // only when empty
			continue
		}
		for _, m := range []string{building, Marker} {
			if fi, err := os.Lstat(filepath.Join(dir, m)); err == nil && fi.Mode().IsRegular() {
				removeSite(dir)
				break
			}
		}
	}
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
	if _, err := os.Stat(filepath.Join(dest, Marker)); err != nil {
		return fmt.Errorf("destination %s is not empty and holds no %s, so transcriptsite did not build it; "+
			"it will not replace it: choose another destination or empty it", dest, Marker)
	}
	return nil
}

// write writes data at the slash path rel inside the site.
// The previous site's file is kept when it holds data already.
func (o *Dir) Write(rel string, data []byte) error {
	sum := cache.SumOf(data)
	if o.Keep(rel, sum) {
		return nil
	}
	p, err := o.anew(rel)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	o.Made(rel, sum)
	return nil
}

// create creates the file at the slash path rel inside the site, for what
// is too big to hold whole in memory (a session's exports). Its writes are
// buffered; Close flushes them.
func (o *Dir) Create(rel string) (io.WriteCloser, error) {
	p, err := o.anew(rel)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	w := fileBufs.Get().(*bufio.Writer)
	w.Reset(f)
	return &bufferedFile{w, f}, nil
}

// anew is the path to write the file rel at, as a new file: one kept
// there from the previous site is a link to that site's file, which
// writing through it would change under the site being served, so the
// link is removed first.
func (o *Dir) anew(rel string) (string, error) {
	p, err := o.file(rel)
	if err != nil {
		return "", err
	}
	o.forget(rel)
	if o.prev {
		os.Remove(p)
	}
	return p, nil
}

// fileBufs hold the buffers of files being created: one of 64 KB for each
// page and export was a fiftieth of what a build allocated.
var fileBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

type bufferedFile struct {
	w *bufio.Writer // nil once closed: its buffer may be another file's
	f *os.File
}

func (b *bufferedFile) Write(p []byte) (int, error) {
	if b.w == nil {
		return 0, os.ErrClosed
	}
	return b.w.Write(p)
}

func (b *bufferedFile) WriteString(s string) (int, error) {
	if b.w == nil {
		return 0, os.ErrClosed
	}
	return b.w.WriteString(s)
}

func (b *bufferedFile) Close() error {
	if b.w == nil {
		return os.ErrClosed
	}
	err := b.w.Flush()
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	b.w.Reset(nil)
	fileBufs.Put(b.w)
	b.w = nil
	return err
}

// keep links the previous site's file rel into the new site (or lists it,
// while the new site is not begun) when it holds what want sums up:
// checked by reading it, unless its stamp is the one the last build saved
// (see stamp). A file with other links (one an older
// version shared with the cache, or a user's backup) is not reused, so
// the site never shares a file with anything but the site it replaces,
// which is removed.
func (o *Dir) Keep(rel string, want cache.Sum) bool {
	if !o.prev || inside(rel) != nil {
		return false
	}
	st, stamped, ok := o.holds(rel, want)
	if !ok || !o.take(rel) {
		return false
	}
	if stamped {
		o.kept(rel, st)
	}
	return true
}

// holds reports whether the previous site's file rel holds what want sums
// up, and its stamp when it has one.
func (o *Dir) holds(rel string, want cache.Sum) (st stamp, stamped, ok bool) {
	old := filepath.Join(o.dest, filepath.FromSlash(rel))
	fi, err := os.Lstat(old)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != want.Size || nameCount(fi) != 1 {
		return st, false, false
	}
	st, stamped = stampOf(fi, want)
	if stamped && o.was[pathKey(rel)] == st {
		return st, true, true
	}
	got, err := sumFile(old)
	return st, stamped, err == nil && got == want
}

// take links the previous site's file rel into the new site, or lists it
// to link when the new site is begun.
func (o *Dir) take(rel string) bool {
	o.tmpMu.Lock()
	begun := o.tmp != ""
	if !begun {
		o.pending = append(o.pending, rel)
	}
	o.tmpMu.Unlock()
	return !begun || o.link(rel) == nil
}

func (o *Dir) Remove(rel string) error {
	p, err := o.file(rel)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

func (o *Dir) Open(rel string) (io.ReadCloser, error) {
	p, err := o.file(rel)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// file is the path of the slash path rel inside the new site, begun,
// its directory made. rel comes from URLs built from session data, so it
// is checked to stay inside the site.
func (o *Dir) file(rel string) (string, error) {
	if err := inside(rel); err != nil {
		return "", err
	}
	if err := o.begin(); err != nil {
		return "", err
	}
	return o.path(rel)
}

// path is file's path of rel, in a new site begun.
func (o *Dir) path(rel string) (string, error) {
	p := filepath.Join(o.tmp, filepath.FromSlash(rel))
	if err := o.dirs.Make(filepath.Dir(p)); err != nil {
		return "", err
	}
	return p, nil
}

// inside checks that the slash path rel names a file inside the site.
func inside(rel string) error {
	if !fs.ValidPath(rel) || rel == "." {
		return fmt.Errorf("refusing to write %q: not a path inside the site", rel)
	}
	return nil
}

// Commit replaces the destination with the new site, in one atomic
// exchange where the file system has one: there is no moment without a
// site. The previous site, swapped to the temporary name, is removed.
// A rebuild that changed nothing leaves the previous site in place.
func (o *Dir) Commit() error {
	defer o.lock.Release()
	if o.unchanged() {
		return nil
	}
	if err := o.begin(); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(o.tmp, building)); err != nil {
		return err
	}
	exchanged, err := exchange(o.tmp, o.dest)
	switch {
	case err != nil:
		return fmt.Errorf("replace %s: %w", o.dest, err)
	case exchanged:
		return removeSite(o.tmp) // the previous site now
	}
	// No exchange here: two renames, and a build killed between them is
	// mended by the next (recoverOld).
	old := oldSite(o.dest)
	if _, err := os.Lstat(o.dest); err == nil {
		if err := os.Rename(o.dest, old); err != nil {
			return fmt.Errorf("replace %s: %w", o.dest, err)
		}
	}
	if err := os.Rename(o.tmp, o.dest); err != nil {
		_ = recoverOld(o.dest)
		return fmt.Errorf("replace %s: %w", o.dest, err)
	}
	return removeSite(old)
}

// Abort removes the unfinished site.
func (o *Dir) Abort() {
	if o.tmp != "" {
		_ = removeSite(o.tmp)
	}
	o.lock.Release()
}
