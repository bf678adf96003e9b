package site

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
)

// sink is where a build writes the site: a directory swapped in at the
// end, or memory.
type sink interface {
	write(rel string, data []byte) error
	// create creates a file to write in pieces; Close ends it.
	create(rel string) (io.WriteCloser, error)
	// open reads a file written.
	open(rel string) (io.ReadCloser, error)
	// keep makes the file rel the previous site's, when that holds what
	// want sums up; false when it does not, or there is none.
	keep(rel string, want cache.Sum) bool
	// made records that the file rel, written, holds what sum sums up.
	made(rel string, sum cache.Sum)
	// remove removes a file written.
	remove(rel string) error
}

// ctxSink is a sink whose writes fail once ctx is done: rendering one
// huge session takes minutes, and Ctrl-C must end a build at once.
type ctxSink struct {
	sink
	ctx context.Context
}

func (c ctxSink) write(rel string, data []byte) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return c.sink.write(rel, data)
}

func (c ctxSink) create(rel string) (io.WriteCloser, error) {
	w, err := c.sink.create(rel)
	if err != nil {
		return nil, err
	}
	return ctxWriter{w, c.ctx}, nil
}

type ctxWriter struct {
	io.WriteCloser
	ctx context.Context
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.WriteCloser.Write(p)
}

func (w ctxWriter) WriteString(s string) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return io.WriteString(w.WriteCloser, s)
}

// stream writes the file at rel inside the site with fn. A file fn
// failed to write is removed, not left in part.
func stream(out sink, rel string, fn func(io.Writer) error) error {
	f, err := out.create(rel)
	if err != nil {
		return err
	}
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		out.remove(rel)
	}
	return err
}

// Files is a site built into memory, by slash path.
type Files map[string][]byte

type memOut struct {
	mu    sync.Mutex
	files Files
	prev  Files // the site before, whose files may be kept
}

func (m *memOut) write(rel string, data []byte) error {
	if err := inside(rel); err != nil {
		return err
	}
	m.mu.Lock()
	m.files[rel] = data
	m.mu.Unlock()
	return nil
}

func (m *memOut) create(rel string) (io.WriteCloser, error) {
	if err := inside(rel); err != nil {
		return nil, err
	}
	return &memFile{m: m, rel: rel}, nil
}

func (m *memOut) open(rel string) (io.ReadCloser, error) {
	m.mu.Lock()
	data, ok := m.files[rel]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("open %s: %w", rel, fs.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// keep shares the previous site's file rel when it holds what want sums
// up: a site in memory is not held twice.
func (m *memOut) keep(rel string, want cache.Sum) bool {
	data, ok := m.prev[rel]
	if !ok || cache.SumOf(data) != want {
		return false
	}
	return m.write(rel, data) == nil
}

func (m *memOut) made(string, cache.Sum) {}

func (m *memOut) remove(rel string) error {
	m.mu.Lock()
	delete(m.files, rel)
	m.mu.Unlock()
	return nil
}

// memFile is a file of a memOut, kept when it is closed.
type memFile struct {
	bytes.Buffer
	m   *memOut
	rel string
}

func (f *memFile) Close() error { return f.m.write(f.rel, f.Bytes()) }
