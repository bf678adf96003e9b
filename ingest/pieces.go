package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"io"
	"io/fs"
	"slices"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// PieceBytes is how much of a file of records one a line a reader is given
// at a time (Reader.Pieces): a session in a bigger file is read, cached and
// shown in volumes (transcript.Session.Volume), a page each, so that no
// stage of a build holds more than a piece of any file, however big. A
// variable for tests, which make small files read in parts.
var PieceBytes int64 = 32 << 20

// piece reads r up to the first line end after a size, so that a reader
// given a file a piece at a time never sees half a record.
type piece struct {
	br    *bufio.Reader
	left  int64 // bytes before it may end at a line end
	size  int64 // bytes read
	lines int   // line ends read
	done  bool
}

func (p *piece) Read(b []byte) (int, error) {
	if p.done || len(b) == 0 {
		return 0, io.EOF
	}
	if p.left > 0 {
		b = b[:min(int64(len(b)), p.left)]
		n, err := p.br.Read(b)
		p.count(b[:n])
		p.left -= int64(n)
		return n, err
	}
	if _, err := p.br.Peek(1); err != nil {
		p.done = true
		return 0, err
	}
	buf, _ := p.br.Peek(min(len(b), p.br.Buffered()))
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf, p.done = buf[:i+1], true
	}
	n := copy(b, buf)
	p.count(b[:n])
	_, err := p.br.Discard(n)
	return n, err
}

func (p *piece) count(b []byte) {
	p.size += int64(len(b))
	p.lines += bytes.Count(b, []byte{'\n'})
}

// readPieces detects the format of the file name of fsys and reads it into
// f, handing what r, the reader it detects, reads to emit: once, with k 0,
// or, for a file of records one a line bigger than pieceBytes (0 for
// none), a piece at a time, k from 1, each piece's sessions volumes of
// theirs (after the file's first line, for a reader whose first line tells
// what the rest is: Reader.Prelude). size is the bytes of the piece; 0
// for a file read whole.
func readPieces(ctx context.Context, fsys fs.FS, name string, f *File, pieceBytes int64, emit func(r *Reader, k int, ss []*transcript.Session, size int64)) (r *Reader) {
	fh, err := open(ctx, fsys, name)
	if err != nil {
		f.Warn(0, "cannot open: %v", err)
		return nil
	}
	defer fh.Close()
	h, body, done, err := Sniff(f.Rel, fh)
	if err != nil {
		f.Warn(0, "cannot read: %v", err)
		return nil
	}
	defer done()
	if len(h.Data) == 0 && h.EOF {
		f.Warn(0, "empty file")
		return nil
	}
	r = Detect(h)
	if r == nil {
		f.Warn(0, "not a session file: no reader recognises its content (see `transcriptsite formats`)")
		return nil
	}
	var read int
	var empty bool // no session, but for a reason a warning tells
	if whole(fsys, name, r, h, pieceBytes) {
		ss, failed := readPiece(ctx, r, f, body)
		read, empty = len(ss), failed
		emit(r, 0, ss, 0)
	} else {
		read, empty = readVolumes(ctx, r, f, body, pieceBytes, emit)
	}
	if read == 0 && !empty {
		f.Warn(0, "%s file holds no messages", r.Name)
	}
	return r
}

// whole says whether r reads the file name of fsys, whose head is h, in
// one go: pieces are off (pieceBytes 0), r reads no pieces of it, or it
// fits in one.
func whole(fsys fs.FS, name string, r *Reader, h *Head, pieceBytes int64) bool {
	return pieceBytes <= 0 || r.Pieces == nil || !r.Pieces(h) || fits(fsys, name, h, pieceBytes)
}

// fits reports whether the file name of fsys, whose head is h, is known
// to fit in one piece: read whole, it costs no copy through a piece.
func fits(fsys fs.FS, name string, h *Head, pieceBytes int64) bool {
	if h.EOF || h.Zstd { // the head is all of it; or the file's size is not what it holds
		return h.EOF && int64(len(h.Data)) <= pieceBytes
	}
	fi, err := fs.Stat(fsys, name)
	return err == nil && fi.Size() <= pieceBytes
}

// readVolumes reads body with r a piece of about pieceBytes at a time, as
// readPieces does, and says how many sessions it read and whether a piece
// failed.
func readVolumes(ctx context.Context, r *Reader, f *File, body io.Reader, pieceBytes int64, emit func(r *Reader, k int, ss []*transcript.Session, size int64)) (read int, failed bool) {
	v := &volumes{ctx: ctx, r: r, f: f, br: bufio.NewReaderSize(body, 64<<10), pieceBytes: pieceBytes, seen: map[string]int{}}
	if r.Prelude {
		v.first, _ = v.br.ReadBytes('\n')
	}
	for k := 1; ; k++ {
		ss, size, bad := v.next(k)
		failed = failed || bad
		read += len(ss)
		_, err := v.br.Peek(1)
		last := err != nil || ctx.Err() != nil
		if k == 1 && last { // it fitted in one piece after all
			emit(r, 0, ss, 0)
			return read, failed
		}
		v.number(ss)
		emit(r, k, ss, size)
		if last {
			return read, failed
		}
	}
}

// volumes is the state of readVolumes.
type volumes struct {
	ctx        context.Context
	r          *Reader
	f          *File
	br         *bufio.Reader
	first      []byte // the file's first line, when each piece is read after it
	pieceBytes int64
	seen       map[string]int // the volumes of each session so far
}

// next reads the piece k: its sessions, its size, and whether the reader
// failed on it.
func (v *volumes) next(k int) ([]*transcript.Session, int64, bool) {
	p := &piece{br: v.br, left: v.pieceBytes - int64(len(v.first))}
	before := len(v.f.Warnings)
	ss, bad := readPiece(v.ctx, v.r, v.f, v.body(p, k))
	v.afterFirst(k, before)
	io.Copy(io.Discard, p) // what a reader that failed left of it
	v.f.lines += p.lines
	return ss, p.size, bad
}

// body is what the reader reads of piece k: the piece, after the file's
// first line when it is read again.
func (v *volumes) body(p *piece, k int) io.Reader {
	if v.first == nil {
		return p
	}
	if k > 1 {
		v.f.lines-- // the first line again: the piece's own are numbered as in the file
	}
	return io.MultiReader(bytes.NewReader(v.first), p)
}

// afterFirst counts the first line read again, and drops the warnings
// it gave after the first piece: they were told with it.
func (v *volumes) afterFirst(k, before int) {
	if v.first == nil {
		return
	}
	if f := v.f; k > 1 {
		kept := slices.DeleteFunc(f.Warnings[before:], func(w Warning) bool { return w.Line == f.lines+1 })
		f.Warnings = f.Warnings[:before+len(kept)]
	}
	v.f.lines++
}

// number gives each session its volume: how many pieces held it so far.
func (v *volumes) number(ss []*transcript.Session) {
	for _, s := range ss {
		v.seen[s.ID]++
		s.Volume = v.seen[s.ID]
	}
}

// readPiece reads what body holds of f with r, and gives its sessions what
// the file tells of them: their format, agent, source and the warnings
// reading it gave. failed says it failed, with a warning.
func readPiece(ctx context.Context, r *Reader, f *File, body io.Reader) (ss []*transcript.Session, failed bool) {
	before := len(f.Warnings)
	defer func() {
		if p := recover(); p != nil {
			// A reader bug must not sink the build; report it like bad input.
			f.Warn(0, "%s reader failed: %v", r.Name, p)
			ss, failed = nil, true
		}
	}()
	ss, err := r.Read(ctx, f, body)
	f.flush(before)
	if err != nil {
		f.Warn(0, "%s: %v", r.Name, err)
		failed = true
	}
	var msgs []string
	for _, w := range f.Warnings[before:] {
		msgs = append(msgs, w.String())
	}
	for _, s := range ss {
		r.stamp(s, f.Rel, msgs)
	}
	return ss, failed
}

// stamp gives s, read by r from the file rel, what the file tells of it:
// its format, and its agent and source unless the reader set them, and
// the warnings reading it gave.
func (r *Reader) stamp(s *transcript.Session, rel string, warnings []string) {
	s.Format = r.Name
	s.Agent = cmp.Or(s.Agent, r.Agent)
	s.Source = cmp.Or(s.Source, rel)
	s.Warnings = append(s.Warnings, warnings...)
}
