// Package sink is where a build writes a site: a folder built beside
// the destination and swapped in whole at the end (Dir), or memory
// (Memory). A build sees a Sink; only the builder knows which it is.
package sink

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
)

// Sink is where a build writes the site: a directory swapped in at the
// end, or memory.
type Sink interface {
	Write(rel string, data []byte) error
	// Create creates a file to write in pieces; Close ends it.
	Create(rel string) (io.WriteCloser, error)
	// Open reads a file written.
	Open(rel string) (io.ReadCloser, error)
	// Keep makes the file rel the previous site's, when that holds what
	// want sums up; false when it does not, or there is none.
	Keep(rel string, want cache.Sum) bool
	// Made records that the file rel, written, holds what sum sums up.
	Made(rel string, sum cache.Sum)
	// Remove removes a file written.
	Remove(rel string) error
}

// WithContext returns out with writes that fail once ctx is done.
func WithContext(ctx context.Context, out Sink) Sink { return ctxSink{out, ctx} }

// ctxSink is a sink whose writes fail once ctx is done: rendering one
// huge session takes minutes, and Ctrl-C must end a build at once.
type ctxSink struct {
	Sink
	ctx context.Context
}

func (c ctxSink) Write(rel string, data []byte) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return c.Sink.Write(rel, data)
}

func (c ctxSink) Create(rel string) (io.WriteCloser, error) {
	w, err := c.Sink.Create(rel)
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

// Stream writes the file at rel inside the site with fn. A file fn
// failed to write is removed, not left in part.
func Stream(out Sink, rel string, fn func(io.Writer) error) error {
	f, err := out.Create(rel)
	if err != nil {
		return err
	}
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		out.Remove(rel)
	}
	return err
}

// Files is a site built into memory, by slash path.
type Files map[string][]byte

// Memory is a site built into memory, again and again: each build keeps
// the files of the one before that are the same.
type Memory struct {
	mu    sync.Mutex
	files Files
	prev  Files // the site before, whose files may be kept
}

// NewMemory returns a Memory whose files may be kept from prev, the site
// built before (nil for none).
func NewMemory(prev Files) *Memory { return &Memory{files: Files{}, prev: prev} }

// Files are the files written.
func (m *Memory) Files() Files { return m.files }

func (m *Memory) Write(rel string, data []byte) error {
	if err := inside(rel); err != nil {
		return err
	}
	m.mu.Lock()
	m.files[rel] = data
	m.mu.Unlock()
	return nil
}

func (m *Memory) Create(rel string) (io.WriteCloser, error) {
	if err := inside(rel); err != nil {
		return nil, err
	}
	return &memFile{m: m, rel: rel}, nil
}

func (m *Memory) Open(rel string) (io.ReadCloser, error) {
	m.mu.Lock()
	data, ok := m.files[rel]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("open %s: %w", rel, fs.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// Keep shares the previous site's file rel when it holds what want sums
// up: a site in memory is not held twice.
func (m *Memory) Keep(rel string, want cache.Sum) bool {
	data, ok := m.prev[rel]
	if !ok || cache.SumOf(data) != want {
		return false
	}
	return m.Write(rel, data) == nil
}

func (m *Memory) Made(string, cache.Sum) {}

func (m *Memory) Remove(rel string) error {
	m.mu.Lock()
	delete(m.files, rel)
	m.mu.Unlock()
	return nil
}

// memFile is a file of a Memory, kept when it is closed.
type memFile struct {
	bytes.Buffer
	m   *Memory
	rel string
}

func (f *memFile) Close() error { return f.m.Write(f.rel, f.Bytes()) }
