package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Cache keeps what reading a file produced, so a file whose content has
// not changed is not parsed again. Keys are hex hashes; values are opaque.
// Open and Write stream an entry: a parsed session can be as big as its
// file, hundreds of megabytes, and must not be held twice.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
	Open(key string) (io.ReadCloser, bool)
	Write(key string, fn func(io.Writer) error)
}

// Key hashes its parts into a cache key. Parts are length-prefixed, so
// ("ab","c") and ("a","bc") differ.
func Key(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// BuildID identifies this program: a hash of its executable, so any
// change to a reader (or anything else) invalidates what it cached.
var BuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil)[:12])
			}
		}
	}
	return "unknown"
})

// parsed is what reading one file produced, as the cache keeps it.
type parsed struct {
	Reader   int // 1 + its index in Readers; 0 when no reader claimed the file
	Sessions []*transcript.Session
	Warnings []Warning
}

// contentHash returns the hash of a file's content, and of the -wal file
// beside it if there is one: a SQLite database's latest writes are there.
// The hash is remembered under the files' sizes and modification times, so
// an unchanged file is not read again to hash it.
func contentHash(c Cache, fsys fs.FS, name, rel string) (string, error) {
	names := []string{name}
	stats := []string{"stat", rel}
	for i, n := range []string{name, name + "-wal"} {
		st, err := fs.Stat(fsys, n)
		if err != nil {
			if i == 0 {
				return "", err
			}
			break
		}
		if i > 0 {
			names = append(names, n)
		}
		stats = append(stats, st.ModTime().UTC().String(), string(binary.LittleEndian.AppendUint64(nil, uint64(st.Size()))))
	}
	statKey := Key(stats...)
	if h, ok := c.Get(statKey); ok {
		return string(h), nil
	}
	h := sha256.New()
	for _, n := range names {
		f, err := fsys.Open(n)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	sum := hex.EncodeToString(h.Sum(nil))
	c.Put(statKey, []byte(sum))
	return sum, nil
}

// cachedRead reads f through the cache: a hit decodes what an earlier
// build parsed, a miss reads the file and stores the result. It returns
// the file's content hash too, "" when it could not be hashed.
func cachedRead(ctx context.Context, opts Options, fsys fs.FS, name string, f *File) (*Reader, []*transcript.Session, string) {
	c := opts.Cache
	sum, err := contentHash(c, fsys, name, f.Rel)
	if err != nil {
		r, ss := readFile(ctx, fsys, name, f)
		transform(opts, ss)
		return r, ss, ""
	}
	key := Key("parse", BuildID(), opts.TransformID, f.Rel, sum)
	if rc, ok := c.Open(key); ok {
		var p parsed
		err := gob.NewDecoder(bufio.NewReaderSize(rc, 64<<10)).Decode(&p)
		rc.Close()
		if err == nil {
			f.Warnings = p.Warnings
			if p.Reader == 0 || p.Reader > len(Readers) {
				return nil, nil, sum
			}
			return Readers[p.Reader-1], p.Sessions, sum
		}
	}
	r, ss := readFile(ctx, fsys, name, f)
	transform(opts, ss)
	if ctx.Err() != nil {
		return r, ss, "" // an interrupted read is not the file's result
	}
	p := parsed{Sessions: ss, Warnings: f.Warnings}
	if r != nil {
		p.Reader = 1 + slices.Index(Readers, r)
	}
	c.Write(key, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&p) })
	return r, ss, sum
}
