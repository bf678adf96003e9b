package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"io"
	"io/fs"
	"slices"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Cache keeps what reading a file produced, so a file whose content has
// not changed is not parsed again. Keys are hex hashes; values are opaque.
// Open and Write stream an entry: a parsed session can be as big as its
// file, hundreds of megabytes, and must not be held twice. Write reports
// whether the entry was stored (a full disk can refuse it).
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
	Open(key string) (io.ReadCloser, bool)
	Write(key string, fn func(io.Writer) error) bool
}

// Blobs stores large binary data, images, as files while sessions are
// read, so that memory holds only their keys: the sha256 of the data in
// hex. The build reads them back from the store it passed. PutBlob
// returns "" when it could not store the data, which then stays in
// memory.
type Blobs interface {
	PutBlob(data []byte) (key string)
}

// parsed is what reading one file produced, as the cache keeps it.
type parsed struct {
	Reader   int // 1 + its index in Readers; 0 when no reader claimed the file
	Sessions []*transcript.Session
	Warnings []Warning
}

// A parsed file is kept as a stream of gob values: its head, then its
// sessions as the cache's codec writes them.

func (p *parsed) encode(w io.Writer) error {
	enc := gob.NewEncoder(w)
	if err := enc.Encode(parsedHead{p.Reader, p.Warnings, len(p.Sessions)}); err != nil {
		return err
	}
	return cache.WriteSessions(enc, p.Sessions)
}

func (p *parsed) decode(r io.Reader) error {
	dec := gob.NewDecoder(r)
	var head parsedHead
	if err := dec.Decode(&head); err != nil {
		return err
	}
	p.Reader, p.Warnings = head.Reader, head.Warnings
	ss, err := cache.ReadSessions(dec, head.Sessions)
	p.Sessions = ss
	return err
}

type parsedHead struct {
	Reader   int
	Warnings []Warning
	Sessions int
}

// contentHash returns the hash of a file's content, and of the -wal file
// beside it if there is one: a SQLite database's latest writes are there.
// The hash is remembered under the files' sizes and modification times, so
// an unchanged file is not read again to hash it.
func contentHash(ctx context.Context, c Cache, fsys fs.FS, name, rel string) (string, error) {
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
	statKey := cache.Key(stats...)
	if h, ok := c.Get(statKey); ok {
		return string(h), nil
	}
	h := sha256.New()
	for _, n := range names {
		f, err := open(ctx, fsys, n)
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
// build parsed, a miss reads the file and stores the result. When the
// sessions are to be released, a hit needs only the file's links and
// warnings, which are kept apart so the sessions are not decoded for them.
func cachedRead(ctx context.Context, opts Options, fsys fs.FS, name string, f *File, release bool) read {
	c := opts.Cache
	rd := read{rel: f.Rel}
	sum, err := contentHash(ctx, c, fsys, name, f.Rel)
	if err != nil {
		rd.reader, rd.sessions = ReadFile(ctx, fsys, name, f)
		transform(opts, rd.sessions)
		return rd
	}
	key := cache.Key("parse", cache.BuildID(), opts.TransformID, f.Rel, sum)
	linksKey := cache.Key("links", key)
	if release {
		var fl fileLinks
		if data, ok := c.Get(linksKey); ok && gob.NewDecoder(bytes.NewReader(data)).Decode(&fl) == nil && fl.Reader <= len(Readers) {
			// Opening the entries also tells the cache they are still in
			// use: the file's, and the images it holds in the blob store.
			// One lost or damaged, the file is read again.
			if touch(c, key) && touchAll(c, fl.Blobs) {
				f.Warnings = fl.Warnings
				rd.hash, rd.key, rd.links = sum, key, fl.Links
				if fl.Reader > 0 {
					rd.reader = Readers[fl.Reader-1]
				}
				return rd
			}
		}
	}
	rd.hash = sum
	if p, err := openParsed(ctx, c, key); err == nil && touchAll(c, blobKeys(p.Sessions)) {
		f.Warnings = p.Warnings
		if p.Reader > 0 && p.Reader <= len(Readers) {
			rd.reader, rd.sessions, rd.key = Readers[p.Reader-1], p.Sessions, key
		}
	} else {
		rd.reader, rd.sessions = ReadFile(ctx, fsys, name, f)
		transform(opts, rd.sessions)
		if ctx.Err() != nil {
			rd.hash = "" // an interrupted read is not the file's result
			return rd
		}
		p := parsed{Sessions: rd.sessions, Warnings: f.Warnings}
		if rd.reader != nil {
			p.Reader = 1 + slices.Index(Readers, rd.reader)
		}
		if c.Write(key, p.encode) {
			rd.key = key // else kept in memory: it cannot be read back
		}
	}
	if release {
		fl := fileLinks{Warnings: f.Warnings}
		if rd.reader != nil {
			fl.Reader = 1 + slices.Index(Readers, rd.reader)
			rd.links = rd.reader.links(rd.sessions)
			fl.Links = rd.links
		}
		fl.Blobs = blobKeys(rd.sessions)
		var buf bytes.Buffer
		if gob.NewEncoder(&buf).Encode(fl) == nil {
			c.Put(linksKey, buf.Bytes())
		}
	}
	return rd
}

// fileLinks is what grouping needs of a parsed file, and the images it
// keeps in the blob store.
type fileLinks struct {
	Reader   int
	Warnings []Warning
	Links    []string
	Blobs    []string
}

// blobKeys lists the images of ss that are in the blob store.
func blobKeys(ss []*transcript.Session) []string {
	var keys []string
	for _, s := range ss {
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			for _, img := range p.Images() {
				if img.Blob != "" {
					keys = append(keys, img.Blob)
				}
			}
		})
	}
	return keys
}

// touchAll reports whether the cache still has every entry of keys.
func touchAll(c Cache, keys []string) bool {
	return !slices.ContainsFunc(keys, func(k string) bool { return !touch(c, k) })
}

func touch(c Cache, key string) bool {
	rc, ok := c.Open(key)
	if ok {
		rc.Close()
	}
	return ok
}
