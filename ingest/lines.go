package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// maxLine is the longest line a reader accepts. Real sessions have lines of
// tens of megabytes (file reads, base64 images); longer ones are skipped.
const maxLine = 256 << 20

// Lines calls fn with each line of r, numbered from 1 (or from the line
// after those of the pieces of f before r), without its line ending. last is true for a final line that has no newline: an agent may
// still be writing it.
func Lines(ctx context.Context, f *File, r io.Reader, fn func(n int, line []byte, last bool) error) error {
	lr := lineReaders.Get().(*lineReader)
	defer lr.release()
	lr.br.Reset(r)
	for n := f.lines + 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := lr.next()
		if err != nil && err != io.EOF {
			return err
		}
		last := err == io.EOF
		if err := f.give(n, line, last, fn); err != nil || last {
			return err
		}
	}
}

// give hands the line n to fn: a line past maxLine as nil, an empty one
// not at all.
func (f *File) give(n int, line []byte, last bool, fn func(n int, line []byte, last bool) error) error {
	switch {
	case len(line) > maxLine:
		return fn(n, nil, last)
	case len(line) > 0:
		f.at = n
		f.checkUTF8(n, line)
		return fn(n, bytes.TrimRight(line, "\r\n"), last)
	}
	return nil
}

// lineReaders are the buffers Lines reads with, reused from file to file:
// new ones for each file (and each long line) cost more in page faults
// than the reading itself.
var lineReaders = sync.Pool{New: func() any { return &lineReader{br: bufio.NewReaderSize(nil, 256<<10)} }}

type lineReader struct {
	br   *bufio.Reader
	long []byte // the last line longer than br's buffer
}

// next reads the next line; one longer than the buffer is joined in
// lr.long, up to a little past maxLine.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	lr.long = append(lr.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = lr.br.ReadSlice('\n')
		if len(lr.long) <= maxLine {
			lr.long = append(lr.long, line...)
		}
	}
	return lr.long, err
}

func (lr *lineReader) release() {
	lr.br.Reset(nil)
	if cap(lr.long) > 16<<20 {
		lr.long = nil // kept for the next file only when it is not huge
	}
	lineReaders.Put(lr)
}

var ErrTooLong = errors.New("line longer than 256 MB")

// JSONL calls fn with each line of r that holds a JSON object. Blank lines
// are skipped silently; any other line, and any line fn fails on, becomes a
// warning naming the line. A final line without a newline that fails is
// reported as incomplete rather than corrupt.
func JSONL(ctx context.Context, f *File, r io.Reader, fn func(n int, line []byte) error) error {
	return Lines(ctx, f, r, func(n int, line []byte, last bool) error {
		var err error
		trimmed := bytes.TrimLeft(line, " \t\r\ufeff")
		switch {
		case line == nil:
			err = ErrTooLong
		case len(trimmed) == 0:
			return nil
		case trimmed[0] != '{':
			err = errors.New("not a JSON object")
		default:
			err = fn(n, line)
		}
		if err != nil {
			if last && line != nil {
				f.Warn(n, "incomplete last line skipped (the agent may still be writing it): %v", err)
			} else {
				f.Warn(n, "skipped: %v", err)
			}
		}
		return nil
	})
}
