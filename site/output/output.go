// Package output is what a build writes, as Hugo has output formats: each
// kind of file (the pages, a session's exports, the feed, the search
// index) is an Output, and a build runs those of a table in order, each
// with a narrow Context rather than the whole build. Adding an output is
// writing one and adding it to the table.
//
// The package knows neither the site's view nor its sessions' pages: an
// output is an Output[S, T] of the view S of a site and T of a session,
// which the package site gives.
package output

import (
	"context"
	"io"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// An Output is one kind of file a build writes. A build runs every output
// its site has, in the order of its table and in three rounds: Start,
// before any session's files are made; Session, once for each session, on
// every core, with the session's turns read once for all the outputs that
// need them; Finish, once every session is done and its turns let go.
type Output[S, T any] interface {
	// On reports whether the site has this output.
	On(site S) bool
	Start(ctx context.Context, c Context[S]) error
	// Session writes what the output holds of one session: files beside
	// its page, or its share of a file of every session.
	Session(c Context[S], j *Job[T]) error
	Finish(c Context[S]) error
}

// Job is a session as the Session round sees it.
type Job[T any] struct {
	Index   int // its place in the site's sessions
	Session T
	Digest  string // its content's digest, for cache keys; "" when unknown
	// Body returns the session whole, read back once for all the outputs
	// of the sessions read with it.
	Body func() (*transcript.Session, error)
}

// Context is what an output sees of the build that runs it.
type Context[S any] interface {
	// Site is the view of the site the build makes.
	Site() S
	// Theme names all that a file depends on besides its sessions: the
	// theme, the config, the program and the names of the assets. A cache
	// key holds it.
	Theme() string
	// Key is the cache entry of parts for a session whose content digest
	// is dig: "" (no entry) without a cache or when dig is "".
	Key(dig string, parts ...string) string
	// Digest is the content digest of the site's i-th session, for cache
	// keys; "" without a cache or when it is unknown.
	Digest(i int) string
	// InMemory says the site is built into memory again and again
	// (serve), where what costs little to make is not cached.
	InMemory() bool

	Write(rel string, data []byte) error
	// Create creates the file rel to write in pieces; Close ends it.
	Create(rel string) (io.WriteCloser, error)
	Remove(rel string) error
	// File writes the file rel from the cache entry key when there is a
	// sound one, else as make writes it, which the cache keeps; key ""
	// skips the cache. The file is never held whole.
	File(rel, key string, make func(io.Writer) error) error
	// Copy writes the file rel from the cache entry key, and reports
	// whether it could.
	Copy(rel, key string) bool
	// Asset writes a file of the theme that every page links (a
	// stylesheet, a script), under a name of its content when the site
	// says so.
	Asset(name string, data []byte) error

	// Cache is the build's cache; nil when it has none.
	Cache() Cache
	// Load reads back the turns of the site's i-th session.
	Load(ctx context.Context, i int) (*transcript.Session, error)
	// Render writes the page of the theme's kind, with data.
	Render(w io.Writer, kind string, data any) error
	// Notice tells the user what the site could not do as configured.
	Notice(msg string)
}

// Cache is the build cache, entries by their keys.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
	// Open reads an entry in pieces, checked as it is read.
	Open(key string) (io.ReadCloser, bool)
	// Write writes an entry in pieces.
	Write(key string, fn func(io.Writer) error) bool
	// PutBlob stores data by its content and returns its key; "" when it
	// could not.
	PutBlob(data []byte) string
	OpenBlob(key string) (io.ReadCloser, error)
}

// Base is an output with nothing to do but in some of the rounds, on in
// every site: an output embeds it and writes the rounds it needs.
type Base[S, T any] struct{}

func (Base[S, T]) On(S) bool                               { return true }
func (Base[S, T]) Start(context.Context, Context[S]) error { return nil }
func (Base[S, T]) Session(Context[S], *Job[T]) error       { return nil }
func (Base[S, T]) Finish(Context[S]) error                 { return nil }
