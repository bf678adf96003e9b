// Package ingest finds session files, detects each one's format from its
// content, and reads it into the transcript model.
package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/internal/parallel"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads one format. Each registers itself (Register), from the
// package of its agent.
type Reader struct {
	Name    string // format name, as it appears in sessions.json
	Agent   string // the agent that writes it
	Files   string // which files it reads, for `transcriptsite formats`
	Detects string // how it recognises them, for `transcriptsite formats`

	// Detect says how sure it is that the file whose first bytes are h is
	// in its format, from 0 (it is not) to Certain. The most confident
	// reader reads the file, whatever their order.
	Detect func(h *Head) float64
	// Read reads every session in f.
	Read func(ctx context.Context, f *File, r io.Reader) ([]*transcript.Session, error)
	// Pieces, when set, reports whether a file whose first bytes are h
	// holds records one a line, each of which reads on its own: Read is
	// then given a file bigger than PieceBytes a piece at a time, each
	// ending at a line end (see readPieces).
	Pieces func(h *Head) bool
	// Prelude says that a file's first line tells what the rest is (whose
	// session it is): each piece after the first is read after it.
	Prelude bool
	// Merge, when set, joins sessions of this format that span several
	// files (resumed sessions, subagents, runs). It sees the sessions of one
	// group of files at a time: files that share a session id, or one of
	// Links (see groups.go), in the order they were found. What a merged
	// session takes from a file must be listed in its Sources, or be one of
	// the links between sessions (Title, ParentID, ChildIDs,
	// ToolCall.Subagent): the build cache knows a session by those, and
	// would otherwise serve a stale page.
	Merge func(ss []*transcript.Session) []*transcript.Session
	// Links, when set, names what, besides session ids, Merge may join a
	// session by with sessions of other files.
	Links func(s *transcript.Session) []string
	// Tools is what it knows of its agent's tools; nil knows only the
	// names all agents share.
	Tools *Tools
	// Locations, when set, lists the folders where its agent keeps its
	// sessions by default, for the user whose home is home: `build
	// --agents` reads them. getenv reads the agent's own environment
	// variables, which move them.
	Locations func(home string, getenv func(string) string) []Location
}

// Warning is a problem with one file, or one line of it, that did not stop the build.
type Warning struct {
	File string // slash path relative to the content dir
	Line int    // 0 when the warning is about the whole file
	Msg  string
}

// String gives the warning as a line to print: control characters and
// bytes that are not UTF-8 (from a file's name) are escaped, so that they
// cannot act on a terminal.
func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", escape(w.File), w.Line, escape(w.Msg))
	}
	return escape(w.File) + ": " + escape(w.Msg)
}

// escape writes control characters and invalid bytes of s as Go escapes.
func escape(s string) string {
	clean := func(r rune) bool { return r != utf8.RuneError && !unicode.IsControl(r) }
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !clean(r) }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if clean(r) {
			b.WriteString(s[i : i+n])
		} else {
			q := strconv.QuoteToASCII(s[i : i+n]) // "\x1b", "\u0085"
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// File is the session file a reader is reading.
type File struct {
	Rel      string // slash path relative to the content dir, as sessions.json names it
	Warnings []Warning

	// FS and Name locate the file for readers that need more than its
	// stream: a SQLite database (and the -wal file beside it) or sibling
	// files. Readers only ever read through them.
	FS   fs.FS
	Name string

	blobs Blobs            // where large images go; nil keeps them in memory
	at    int              // the line being read, for notes
	lines int              // lines before the piece being read (readPieces)
	notes map[string]*note // problems that may recur on many lines
	order []string         // notes' messages, as first met
}

// Warn records a problem with line n of the file (0 for the whole file).
// An error among args is told in the session's terms, not Go's.
func (f *File) Warn(line int, format string, args ...any) {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = sessionTerms(err)
		}
	}
	f.Warnings = append(f.Warnings, Warning{File: f.Rel, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// At says which line of the file is being read: the notes and unknown
// records met next name it.
func (f *File) At(n int) { f.at = n }

// sessionTerms tells a decoding error by the record's own field and JSON
// types, where Go's message names the reader's struct types ("cannot
// unmarshal string into Go struct field ccRecord.message of type
// ingest.ccMessage").
func sessionTerms(err error) string {
	msg := err.Error()
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		what := mismatch(te)
		if te.Field != "" {
			what = te.Field + ": " + what
		}
		msg = strings.Replace(msg, te.Error(), what, 1)
	}
	return msg
}

// note is a problem met on many lines: one warning names the first.
type note struct{ line, count int }

// note records msg, a problem with line n that other lines may share;
// flush turns the notes into warnings, one per message.
func (f *File) note(n int, msg string) {
	if f.notes == nil {
		f.notes = map[string]*note{}
	}
	if nt := f.notes[msg]; nt != nil {
		nt.count++
		return
	}
	f.notes[msg] = &note{n, 1}
	f.order = append(f.order, msg)
}

func (f *File) flush(from int) {
	if len(f.order) == 0 {
		return
	}
	for _, msg := range f.order {
		nt := f.notes[msg]
		if nt.count > 1 {
			msg = fmt.Sprintf("%s (%d lines, the first here)", msg, nt.count)
		}
		f.Warn(nt.line, "%s", msg)
	}
	f.notes, f.order = nil, nil
	slices.SortStableFunc(f.Warnings[from:], func(a, b Warning) int { return a.Line - b.Line })
}

// Unknown is a record or part the reader does not know, kept as an event
// and reported with the line being read.
func (f *File) Unknown(desc string, raw []byte) *transcript.Part {
	f.note(f.at, desc+": shown as an unknown event")
	return EventPart(transcript.Unknown, desc, raw)
}

// checkUTF8 reports invalid UTF-8 on line n: JSON decoding and the pages
// show its bytes as U+FFFD.
func (f *File) checkUTF8(n int, b []byte) {
	if !utf8.Valid(b) {
		f.note(n, "invalid UTF-8: the bad bytes show as U+FFFD")
	}
}

// Result is what Load read.
type Result struct {
	// Headers are every session read, without its turns; Groups and Load
	// give the bodies, the sessions whole.
	Headers []*transcript.Header
	// Sessions are every session whole, when the load holds them all: it
	// did not release them (Options.Release); else nil.
	Sessions []*transcript.Session
	Files    int // session files read, whatever their outcome
	Warnings []Warning
	// Hashes holds the content hash of each file read, by its slash path,
	// when Load ran with a cache.
	Hashes map[string]string

	opts   Options
	reads  []read
	groups []*group
}

// skipDirs are never descended into: they hold no sessions and can be huge.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// bareGit reports whether dir is a bare git repository, such as the
// snapshot repositories opencode keeps beside its sessions: thousands of
// objects and no session.
func bareGit(fsys fs.FS, dir string) bool {
	head, err := fs.Stat(fsys, path.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	objects, err := fs.Stat(fsys, path.Join(dir, "objects"))
	return err == nil && objects.IsDir()
}

// DirFS is the content dir dir as a file system. Unlike os.DirFS, it
// takes names that are not UTF-8: a folder named in another encoding
// holds sessions too. Like it, it refuses "..", "." and empty elements.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

func (d dirFS) join(name, op string) (string, error) {
	if !fs.ValidPath(strings.ToValidUTF8(name, "x")) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), filepath.FromSlash(name)), nil
}

func (d dirFS) Open(name string) (fs.File, error) {
	p, err := d.join(name, "open")
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.join(name, "stat")
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := d.join(name, "readdir")
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

// Root is a content dir. Name prefixes the paths of its files when a site
// reads several; it is "" for a site with one content dir.
type Root struct {
	Name string
	FS   fs.FS
}

// file is a file to read: where it is, and how sessions.json names it.
type file struct {
	fsys fs.FS
	path string // inside fsys
	rel  string // slash path shown to the user: the root's name, then path
	size int64
}

// Load reads every file of every root. A file that cannot be read, or that
// no reader claims, becomes a warning; only an unreadable root fails. It
// only ever opens files for reading.
func Load(ctx context.Context, roots ...Root) (*Result, error) {
	return LoadCached(ctx, Options{}, roots...)
}

// Options change how Load reads.
type Options struct {
	// Cache keeps what files parse into: a file whose content is unchanged
	// since a load that used the same cache and transform is not parsed
	// again. Nil reads every file.
	Cache Cache
	// Transform, when set, changes each session a file holds as soon as it
	// is read (before it is cached, merged or seen by anything else): the
	// build redacts secrets here. TransformID names what it does, for the
	// cache.
	Transform   func(*transcript.Session)
	TransformID string
	// Parsing, when set, is called once, as the first file the cache
	// lacks starts to be parsed, with the size of all the files the load
	// reads: the build compiles its redaction rules then, on another core,
	// not when the first session waits for them, and has the heap the
	// parse will use faulted in. Meanwhile, with a Cache, the other
	// workers hash the files ahead of the parse.
	Parsing func(size int64)
	parsing func() // Parsing, once, with the size
	// Merged, when set, is called with each session once its files are
	// merged and it is finished: the build counts there what redaction
	// replaced in the session, which Merge does not add up.
	Merged func(*transcript.Session)
	// Blobs, when set, holds large images as they are read.
	Blobs Blobs
	// Release, with a Cache, keeps only the header of each session once it
	// is read (transcript.Header), so that a site of any size fits in
	// memory; Result.Load reads a group's bodies back.
	Release bool
	// Hold, with Release, keeps the sessions of files parsed by this load
	// whole, up to this many bytes of files: reading them back from the
	// cache costs more than holding a small site. A file the cache already
	// had is released whatever its size: it is not decoded at all.
	Hold int64
}

// LoadCached is Load with options.
func LoadCached(ctx context.Context, opts Options, roots ...Root) (*Result, error) {
	files, skipped, err := walk(roots)
	if err != nil {
		return nil, err
	}
	reads := readAll(ctx, opts, files)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Files: len(files), opts: opts, reads: reads, Warnings: skipped}
	res.addReads(len(files))
	res.groups = groupFiles(reads)
	errs := res.mergeAll(ctx, files)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.addGroups(errs)
	return res, nil
}

// addReads adds the warnings of res's reads of files and, with a cache,
// their content hashes.
func (res *Result) addReads(files int) {
	if res.opts.Cache != nil {
		res.Hashes = make(map[string]string, files)
	}
	for _, rd := range res.reads {
		res.Warnings = append(res.Warnings, rd.warnings...)
		if rd.hash != "" {
			res.Hashes[rd.rel] = rd.hash
		}
	}
}

// addGroups adds the headers of res's groups, merged with errs, and
// their sessions unless they are released.
func (res *Result) addGroups(errs []error) {
	release := res.released()
	for i, g := range res.groups {
		if errs[i] != nil {
			// The cache lost a file's entry since it was read, and the file
			// changed format meanwhile: its sessions are missing, not wrong.
			res.Warnings = append(res.Warnings, Warning{File: res.reads[g.files[0]].rel, Msg: errs[i].Error()})
			continue
		}
		res.Headers = append(res.Headers, g.headers...)
		if !release {
			res.Sessions = append(res.Sessions, g.bodies...)
		}
	}
	if !release {
		res.reads = nil // the sessions are in their groups
	}
}

// walk lists the files of every root, and warns of those that are not
// regular files. A database's -wal and -shm files are read with it, not
// on their own.
func walk(roots []Root) (files []file, skipped []Warning, err error) {
	w := &walker{}
	for _, root := range roots {
		w.root = root
		if err := fs.WalkDir(root.FS, ".", w.visit); err != nil {
			return nil, nil, fmt.Errorf("content dir %s: %w", cmp.Or(root.Name, "."), err)
		}
	}
	rels := map[string]bool{}
	for _, f := range w.files {
		rels[f.rel] = true
	}
	return slices.DeleteFunc(w.files, func(f file) bool { return isSQLiteSidecar(f.rel, rels) }), w.skipped, nil
}

// walker gathers the files of the roots walk walks.
type walker struct {
	root    Root
	files   []file
	skipped []Warning
}

// visit is fs.WalkDirFunc for the root being walked.
func (w *walker) visit(p string, d fs.DirEntry, err error) error {
	if err != nil && p == "." {
		return err
	}
	if err == nil && d.IsDir() {
		if p != "." && (skipDirs[d.Name()] || bareGit(w.root.FS, p)) {
			return fs.SkipDir
		}
		return nil
	}
	f := file{fsys: w.root.FS, path: p, rel: path.Join(w.root.Name, p)}
	if err == nil {
		if why := f.stat(d); why != "" {
			w.skipped = append(w.skipped, Warning{File: f.rel, Msg: why})
			return nil
		}
	}
	w.files = append(w.files, f) // a file that cannot be read is reported when read
	return nil
}

// stat sets f's size, and says why f is skipped if it is not a regular
// file: only regular files are read, links resolved, as a named pipe or a
// device (/dev/zero) would block or never end. A file that cannot be
// stat'ed is read, and the error reported then.
func (f *file) stat(d fs.DirEntry) (skip string) {
	info, err := d.Info()
	if err == nil && d.Type()&fs.ModeSymlink != 0 {
		info, err = fs.Stat(f.fsys, f.path)
	}
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		return fmt.Sprintf("skipped: %s, not a regular file", kind(info.Mode()))
	default:
		f.size = info.Size()
	}
	return ""
}

// readAll reads every file, largest first, through the cache when there
// is one: a read a file, or a piece of one (readPieces). With Release,
// what a file gave is dropped once the cache has it, but for the files
// Hold keeps whole.
func readAll(ctx context.Context, opts Options, files []file) []read {
	order := parallel.LargestFirst(len(files), func(i int) int64 { return files[i].size })
	workers := runtime.GOMAXPROCS(0)
	if p := opts.Parsing; p != nil {
		size := totalSize(files)
		opts.parsing = hashAhead(ctx, opts.Cache, files, order[min(workers, len(order)):], func() { p(size) })
	}
	r := reading{ctx: ctx, opts: opts, release: opts.Release && opts.Cache != nil}
	reads := make([][]read, len(files))
	parallel.Run(ctx, workers, order, func(i int) { reads[i] = r.file(files[i]) })
	return slices.Concat(reads...)
}

func totalSize(files []file) (size int64) {
	for _, f := range files {
		size += f.size
	}
	return size
}

// reading is what readAll's workers share.
type reading struct {
	ctx     context.Context
	opts    Options
	release bool         // whether what a file gave is dropped once the cache has it
	held    atomic.Int64 // bytes of files kept whole (Options.Hold)
}

// file reads a file, or its pieces, through the cache when there is one.
func (r *reading) file(fl file) []read {
	f := &File{Rel: fl.rel, FS: fl.fsys, Name: fl.path, blobs: r.opts.Blobs}
	var rds []read
	if r.opts.Cache != nil {
		rds = cachedRead(r.ctx, r.opts, fl.fsys, fl.path, f, r.release)
	} else {
		rds = readFile(r.ctx, r.opts, fl.fsys, fl.path, f)
	}
	rds[0].warnings = f.Warnings
	for j := range rds {
		r.finish(&rds[j], fl)
	}
	return rds
}

// finish tells a read its file, links its sessions, and drops them if
// the cache has them and they are not held.
func (r *reading) finish(rd *read, fl file) {
	rd.fsys, rd.name = fl.fsys, fl.path
	if rd.piece == 0 {
		rd.size = fl.size
	}
	if rd.reader != nil && rd.links == nil {
		rd.links = rd.reader.links(rd.sessions)
	}
	keep := rd.sessions != nil && r.opts.Hold > 0 && r.held.Add(rd.size) <= r.opts.Hold
	if r.release && rd.key != "" && !keep {
		rd.sessions, rd.released = nil, true // read again from the cache when its group is merged
	}
}

// hashAhead makes readAll's parsing hook: its first caller runs p, which
// can take a core for a while (the build fills the heap the parse will
// use, on one core: the kernel fills pages no faster from two). Its other
// callers would wait; they hash files meanwhile, which needs no new
// memory, so that the parse of those files finds their hashes in c. They
// take the files of later from its end, the smallest, which the workers
// p holds do not reach before it returns (one that did would only hash
// a file twice).
func hashAhead(ctx context.Context, c Cache, files []file, later []int, p func()) func() {
	if c == nil {
		return sync.OnceFunc(p)
	}
	var (
		started atomic.Bool
		done    = make(chan struct{})
		left    atomic.Int64 // files of later not yet taken
	)
	left.Store(int64(len(later)))
	return func() {
		if started.CompareAndSwap(false, true) {
			defer close(done)
			p()
			return
		}
		for {
			select {
			case <-done:
				return
			default:
			}
			n := left.Add(-1)
			if n < 0 || ctx.Err() != nil {
				<-done
				return
			}
			f := files[later[n]]
			contentHash(ctx, c, f.fsys, f.path, f.rel) // an error is the parse's to report
		}
	}
}

// released reports whether the load keeps only the headers of the
// sessions it does not hold.
func (res *Result) released() bool { return res.opts.Release && res.opts.Cache != nil }

// mergeAll merges each group, largest first, and gives each its headers:
// from the merged sessions, which it holds, or, for a group whose files
// went back to the cache, from the cache when they have not changed.
func (res *Result) mergeAll(ctx context.Context, files []file) []error {
	opts, reads := res.opts, res.reads
	errs := make([]error, len(res.groups))
	order := parallel.LargestFirst(len(res.groups), func(i int) int64 {
		var n int64
		for _, f := range res.groups[i].files {
			n += reads[f].size
		}
		return n
	})
	parallel.Run(ctx, runtime.GOMAXPROCS(0), order, func(i int) {
		g := res.groups[i]
		keys := g.cacheKeys(reads)
		if res.released() && keys != nil && !g.held(reads) {
			g.release(reads)
			g.keys = keys
			g.headers, errs[i] = summarise(ctx, opts, g, reads)
			return
		}
		if g.bodies, errs[i] = merge(ctx, opts, g, reads, true); errs[i] != nil {
			return
		}
		g.headers = headers(g.bodies)
		if res.released() && keys != nil {
			// Held, and summarised for the next load, which may read them
			// back after Drop.
			g.keys = keys
			putHeaders(opts.Cache, keys, g.headers)
		}
	})
	return errs
}

// read is what reading one file gave.
type read struct {
	fsys     fs.FS
	name     string // in fsys
	rel      string
	reader   *Reader
	sessions []*transcript.Session // nil once released to the cache
	released bool
	warnings []Warning
	hash     string   // its content hash, "" when it could not be hashed
	key      string   // its parsed sessions in the cache, "" when they are not there
	links    []string // see groups.go
	size     int64    // of the file, or of the piece
	piece    int      // its number, from 1, in a file read in pieces; 0 for a file read whole
}

// kind names what a file that is not a regular one is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a link to a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// open opens the file name of fsys to read it, if it is a regular file,
// as a reader that ends when ctx is done.
func open(ctx context.Context, fsys fs.FS, name string) (io.ReadCloser, error) {
	fh, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		fh.Close()
		if err == nil {
			err = fmt.Errorf("%s, not a regular file", kind(fi.Mode()))
		}
		return nil, err
	}
	return ctxReader{ctx, fh}, nil
}

// ctxReader is a file whose reads end when ctx is done: a file can take
// minutes to read, and Ctrl-C must end a build at once.
type ctxReader struct {
	ctx context.Context
	io.ReadCloser
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.ReadCloser.Read(p)
}

// ReadFile detects f's format and reads it, whole, however big (a build
// reads a big file in pieces). Warnings go to f.
func ReadFile(ctx context.Context, fsys fs.FS, name string, f *File) (r *Reader, ss []*transcript.Session) {
	r = readPieces(ctx, fsys, name, f, 0, func(_ *Reader, _ int, piece []*transcript.Session, _ int64) {
		ss = append(ss, piece...)
	})
	return r, ss
}

func parsing(opts Options) {
	if opts.parsing != nil {
		opts.parsing()
	}
}

func transform(opts Options, ss []*transcript.Session) {
	if opts.Transform != nil {
		for _, s := range ss {
			opts.Transform(s)
		}
	}
}

// Stem is the file name without directories and extensions.
func Stem(rel string) string {
	b := rel[strings.LastIndexByte(rel, '/')+1:]
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}
