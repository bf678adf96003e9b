package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"io"
	"io/fs"
	"slices"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

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

func (p parsed) encode(w io.Writer) error {
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
// A file read in pieces gives a read a piece, each cached and released as
// soon as it is read.
func cachedRead(ctx context.Context, opts Options, fsys fs.FS, name string, f *File, release bool) []read {
	c := opts.Cache
	sum, err := contentHash(ctx, c, fsys, name, f.Rel)
	if err != nil {
		return readFile(ctx, opts, fsys, name, f)
	}
	key := cache.Key("parse", cache.BuildID(), opts.TransformID, f.Rel, sum)
	hit := parsedHit
	if release {
		hit = linksHit
	}
	if rds, ok := hit(ctx, c, key, f, sum); ok {
		return rds
	}
	return parseCached(ctx, opts, fsys, name, f, sum, key, release)
}

// linksHit is the reads of a file whose sessions are to be released, from
// its links and warnings in the cache, if they are there. Opening the
// entries also tells the cache they are still in use: the file's, and the
// images it holds in the blob store; one lost or damaged, the file is read
// again.
func linksHit(_ context.Context, c Cache, key string, f *File, sum string) ([]read, bool) {
	var fl fileLinks
	data, ok := c.Get(cache.Key("links", key))
	if !ok || jsonv2.Unmarshal(data, &fl, cacheJSON) != nil || fl.Reader > len(Readers) {
		return nil, false
	}
	if !touchAll(c, fl.keys(key)) || !touchAll(c, fl.Blobs) {
		return nil, false
	}
	f.Warnings = fl.Warnings
	return fl.reads(f.Rel, sum, key), true
}

// parsedHit is the read of a file from what the cache keeps of it parsed,
// if it is there with every image it holds.
func parsedHit(ctx context.Context, c Cache, key string, f *File, sum string) ([]read, bool) {
	p, err := openParsed(ctx, c, key)
	if err != nil || !touchAll(c, blobKeys(p.Sessions)) {
		return nil, false
	}
	f.Warnings = p.Warnings
	rd := read{rel: f.Rel, hash: sum}
	if p.Reader > 0 && p.Reader <= len(Readers) {
		rd.reader, rd.sessions, rd.key = Readers[p.Reader-1], p.Sessions, key
	}
	return []read{rd}, true
}

// parseCached reads f, whose content hash is sum, and stores what it gave
// in the cache under key, or, when it is read in pieces, each piece under a
// key of its own. With release, a piece stored is dropped at once.
func parseCached(ctx context.Context, opts Options, fsys fs.FS, name string, f *File, sum, key string, release bool) []read {
	parsing(opts)
	pc := &pieceCache{ctx: ctx, c: opts.Cache, rel: f.Rel, sum: sum, key: key, release: release}
	var whole []*transcript.Session
	r := readPieces(ctx, fsys, name, f, PieceBytes, func(r *Reader, k int, ss []*transcript.Session, size int64) {
		transform(opts, ss)
		if k == 0 {
			whole = ss // cached once the file's warnings are all known
			return
		}
		pc.addPiece(r, k, ss, size)
	})
	if ctx.Err() != nil {
		return []read{{rel: f.Rel}} // an interrupted read is not the file's result
	}
	pc.links.Reader, pc.links.Warnings = readerIndex(r), f.Warnings
	if pc.reads == nil {
		pc.addWhole(r, whole)
	} else if slices.ContainsFunc(pc.reads, func(rd read) bool { return rd.key == "" }) {
		return pc.reads // a piece could not be cached: the next build reads the file again
	}
	if release {
		pc.storeLinks()
	}
	return pc.reads
}

// pieceCache caches what parseCached reads of a file, whole or a piece at
// a time, and gathers its links.
type pieceCache struct {
	ctx           context.Context
	c             Cache
	rel, sum, key string // the file, its content hash and its key
	release       bool
	reads         []read
	links         fileLinks
}

// addPiece caches the piece k, its sessions ss.
func (pc *pieceCache) addPiece(r *Reader, k int, ss []*transcript.Session, size int64) {
	rd := read{rel: pc.rel, reader: r, hash: pc.sum, piece: k, size: size, links: r.links(ss)}
	pc.links.Blobs = append(pc.links.Blobs, blobKeys(ss)...)
	pk := pieceKey(pc.key, k)
	if pc.ctx.Err() == nil && pc.c.Write(pk, parsed{Reader: readerIndex(r), Sessions: ss}.encode) {
		rd.key, rd.released = pk, pc.release // not held: that is what pieces are for
	}
	if !rd.released {
		rd.sessions = ss
	}
	pc.links.Pieces = append(pc.links.Pieces, filePiece{Links: rd.links, Size: size})
	pc.reads = append(pc.reads, rd)
}

// addWhole caches the sessions ss of a file read whole, r's (nil when no
// reader took it).
func (pc *pieceCache) addWhole(r *Reader, ss []*transcript.Session) {
	rd := read{rel: pc.rel, reader: r, sessions: ss, hash: pc.sum}
	if pc.c.Write(pc.key, parsed{Reader: pc.links.Reader, Sessions: ss, Warnings: pc.links.Warnings}.encode) {
		rd.key = pc.key // else kept in memory: it cannot be read back
	}
	if r != nil {
		rd.links = r.links(ss)
	}
	pc.links.Links, pc.links.Blobs = rd.links, blobKeys(ss)
	pc.reads = []read{rd}
}

// storeLinks caches what grouping needs of the file, to group it again
// without reading its sessions.
func (pc *pieceCache) storeLinks() {
	if data, err := jsonv2.Marshal(pc.links, cacheJSON); err == nil {
		pc.c.Put(cache.Key("links", pc.key), data)
	}
}

// readFile reads f without a cache: a read, or one a piece.
func readFile(ctx context.Context, opts Options, fsys fs.FS, name string, f *File) []read {
	parsing(opts)
	var reads []read
	readPieces(ctx, fsys, name, f, PieceBytes, func(r *Reader, k int, ss []*transcript.Session, size int64) {
		transform(opts, ss)
		reads = append(reads, read{rel: f.Rel, reader: r, sessions: ss, piece: k, size: size})
	})
	if reads == nil {
		return []read{{rel: f.Rel}}
	}
	return reads
}

// readerIndex is r's number in a cache entry: 1 + its index in Readers, 0
// for none.
func readerIndex(r *Reader) int {
	if r == nil {
		return 0
	}
	return 1 + slices.Index(Readers, r)
}

func pieceKey(key string, k int) string { return cache.Key(key, "piece", strconv.Itoa(k)) }

// cacheJSON is how what a file links to and a group's summaries are
// cached. Gob wrote the description of their types into each entry and
// compiled a decoder for it again for each: about 0.2 ms an entry, a fifth
// of a rebuild with nothing changed; JSON decodes one in tens of
// microseconds. Nil slices and maps stay nil and durations are
// nanoseconds, as gob had them; a string that is not UTF-8, which JSON
// would change, fails the entry, which is then not cached.
var cacheJSON = jsonv2.JoinOptions(jsonv1.FormatDurationAsNano(true),
	jsonv2.FormatNilSliceAsNull(true), jsonv2.FormatNilMapAsNull(true), jsonv2.Deterministic(true))

// fileLinks is what grouping needs of a parsed file, and the images it
// keeps in the blob store.
type fileLinks struct {
	Reader   int
	Warnings []Warning
	Links    []string
	Blobs    []string
	Pieces   []filePiece // of a file read in pieces, each cached on its own
}

// filePiece is what grouping needs of a piece of a file.
type filePiece struct {
	Links []string
	Size  int64
}

// keys lists the cache entries of the file whose entry is key.
func (fl *fileLinks) keys(key string) []string {
	if len(fl.Pieces) == 0 {
		return []string{key}
	}
	keys := make([]string, len(fl.Pieces))
	for i := range fl.Pieces {
		keys[i] = pieceKey(key, i+1)
	}
	return keys
}

// reads gives the reads of the file as an earlier build read it, whose
// sessions are all in the cache.
func (fl *fileLinks) reads(rel, sum, key string) []read {
	var r *Reader
	if fl.Reader > 0 {
		r = Readers[fl.Reader-1]
	}
	if len(fl.Pieces) == 0 {
		return []read{{rel: rel, reader: r, hash: sum, key: key, links: fl.Links}}
	}
	reads := make([]read, len(fl.Pieces))
	for i, p := range fl.Pieces {
		reads[i] = read{rel: rel, reader: r, hash: sum, key: pieceKey(key, i+1), piece: i + 1, size: p.Size, links: p.Links}
	}
	return reads
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
