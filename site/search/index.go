// Package search builds the site's static search index: terms sorted and
// split into shards, so a query downloads only the shards of its terms, a
// small meta file of each shard's term range, excerpts in small blocks
// with the titles and pages of their sessions, and an eager table of
// sessions for filters.
//
// A document is one message. Its postings carry the message's role and tool
// kinds, so filters need no other download, and how often the term occurs.
// The positions of terms, needed only to match phrases, are in files of
// their own beside the shards, so a query of plain words never loads them.
package search

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/internal/wire"
)

// Version is written into the meta file; the client refuses another.
const Version = 6

// HeadBytes and TailBytes are what is indexed of a long document: its
// start and its end, a log's command and first lines, its summary and its
// last error.
const (
	HeadBytes = 6 << 10
	TailBytes = 3 << 10
)

const (
	maxTokens = 2000 // indexed per document: past it a long output only adds noise and size
	maxPos    = 8    // positions kept per term per document: enough to match phrases, and a
	// common word in a long output no longer costs every phrase query its every position
	titleLen    = 48       // characters of a title, as a result shows it
	maxTokenLen = 64       // longer runs (base64, hashes of hashes) are not words anyone types
	maxSuffixes = 3        // of a path, the parts after its last three '/' are terms too
	excerptLen  = 1000     // bytes of a document's excerpt in its block: the rest is loaded only for a result whose match lies past them
	restTarget  = 4 << 10  // bytes of the rests of excerpts per file before a new one starts
	shardTarget = 32 << 10 // bytes of JSON per shard before a new one starts
	BlockDocs   = 16       // documents per excerpt file: a result downloads one small block
	// PosGroup is how many shards' positions share a file: only a phrase
	// loads them, and a file of one shard's was a third of the index's
	// files for a few kilobytes each.
	PosGroup = 4
)

// Roles of documents, as the client's role filter knows them.
const (
	RoleUser = iota
	RoleAssistant
	RoleSystem
	RoleTool
)

// Doc is one message to index.
type Doc struct {
	N     int    // the message's number on its page: results link to #m-N
	Role  int    // RoleUser, …
	Kinds uint16 // a bit per tool kind the message calls, in the order of Options.Kinds
	Text  string
	// Excerpt is what a result may show of the document, as plain text:
	// all that is indexed of it, so that a result shows a word it was
	// found by wherever the word is; "" shows Text.
	Excerpt string
}

// Session describes a session for results and filters.
type Session struct {
	Title, Project, Agent string
	Models                []string
	Path                  string // its page, relative to the site root
	Day                   int    // the day it started, as days since 1970-01-01; 0 if unknown
}

// Index accumulates documents. Sessions must be added in the site's order
// for the output to be deterministic; it is not safe for concurrent use.
type Index struct {
	kinds                    []string
	write                    func(name string, data []byte) error
	writing                  chan struct{}  // a token per file being written in the background
	pending                  sync.WaitGroup // files being written
	mu                       sync.Mutex
	err                      error // the first failed write
	sessions                 []sessionRow
	projects, agents, models []string
	lists                    spill // every appended term's lists, until Write
	docs                     int
	frags                    []fragment     // of documents not yet written in a block
	blocks                   int            // of excerpts written
	rests                    map[int]string // the rests of excerpts not yet written, by document
	restSize                 int            // their bytes
	restFiles                int            // written
	build                    hash.Hash      // of everything written, for the build id
}

type sessionRow struct {
	Session
	project, agent int
	models         []int
	docStart       int
}

type fragment struct {
	n        int
	role     int
	text     string // the start of the excerpt, which its block holds
	rest     string // the rest, in a file of rests (r/); text+rest is the whole
	restFile int    // that file's number, once the fragment is appended
	path     string // the session's page and title: a result needs them with the excerpt
	title    string
}

// New returns an empty index that writes its files with write(name, data),
// names relative to the index's directory: excerpts as sessions are
// appended, the rest on Write. kinds names the tool kinds in the order of
// Doc.Kinds bits.
func New(kinds []string, write func(name string, data []byte) error) *Index {
	return &Index{kinds: kinds, write: write, build: sha256.New(), writing: make(chan struct{}, 8)}
}

// Prepared is a session tokenized and ready to append: its distinct terms
// and, for each, its postings and positions, varint-encoded. A term's
// postings are, for each document it occurs in, the delta of the
// document's id, its flags (role | kinds<<2) and the count of occurrences;
// its positions are, for each such document, the deltas of the first
// min(count, maxPos). Everything is in a few flat slices, so the index can
// hold thousands of sessions until Write at little cost to the garbage
// collector. Preparing is the costly part of indexing and is safe to run
// for many sessions at once.
type Prepared struct {
	session Session
	more    bool     // a further part of the session appended before it
	terms   string   // the distinct terms, one after another
	ends    []uint32 // where each term ends in terms
	docs    []byte   // each term's postings, one after another, with ids local to the session
	docEnds []uint32
	pos     []byte // each term's positions, one after another
	posEnds []uint32
	last    []uint32 // each term's last document
	frags   []fragment
}

// Size is about the bytes p holds in memory.
func (p *Prepared) Size() int {
	n := len(p.terms) + len(p.docs) + len(p.pos) + 4*(len(p.ends)+len(p.docEnds)+len(p.posEnds)+len(p.last))
	for _, f := range p.frags {
		n += len(f.text) + len(f.rest) + len(f.path) + 48
	}
	return n
}

// lists returns the postings and the positions of term k.
func (p *Prepared) lists(k int) (docs, pos []byte) {
	var d, q uint32
	if k > 0 {
		d, q = p.docEnds[k-1], p.posEnds[k-1]
	}
	return p.docs[d:p.docEnds[k]], p.pos[q:p.posEnds[k]]
}

// Prepare tokenizes a session's documents.
func Prepare(s Session, docs []Doc) *Prepared { return PreparePart(s, docs, false) }

// logDoc logs a record of each term of document id: the term, the
// document, its flags, the term's count and positions in it.
func (w *scratch) logDoc(id int, flags uint32) {
	for _, k := range w.inDoc {
		e := &w.entries[k]
		w.log = append(w.log, uint32(k), uint32(id), flags, uint32(e.count), uint32(e.npos))
		for _, x := range e.pos[:e.npos] {
			w.log = append(w.log, uint32(x))
		}
		e.records++
	}
}

// PreparePart tokenizes some of a session's documents, the rest of those
// of the part before it when more is set: a session of gigabytes is
// prepared a part at a time, so that what preparing holds is bounded by
// the part, not the session. Its parts, appended one after another, make
// the index that the session prepared whole makes.
func PreparePart(s Session, docs []Doc, more bool) *Prepared {
	p := &Prepared{session: s, more: more}
	w := scratches.Get().(*scratch)
	defer scratches.Put(w)
	w.reset()
	for id, d := range docs {
		w.inDoc = w.inDoc[:0]
		i := 0
		for _, text := range indexed(d.Text) {
			Tokenize(text, func(b []byte, compound bool) bool {
				k, ok := w.seen[string(b)] // no allocation to look up
				if !ok {
					k = int32(len(w.entries))
					w.seen[string(b)] = k
					w.entries = append(w.entries, entry{})
					w.terms = append(w.terms, b...)
					w.ends = append(w.ends, uint32(len(w.terms)))
				}
				e := &w.entries[k]
				if e.doc != id+1 {
					e.doc, e.count, e.npos = id+1, 0, 0
					w.inDoc = append(w.inDoc, k)
				}
				e.count++
				if compound { // a compound sits where its words are: it takes no position
					return true
				}
				if e.npos < maxPos {
					e.pos[e.npos] = i
					e.npos++
				}
				i++
				return i < maxTokens
			})
		}
		w.logDoc(id, uint32(d.Role|int(d.Kinds)<<2))
		f := fragment{n: d.N, role: d.Role, path: s.Path, title: s.Title}
		f.text, f.rest = excerpt(d)
		p.frags = append(p.frags, f)
	}

	// Group the log by term, in document order, and encode each term's
	// lists one after another.
	n := len(w.entries)
	w.next = slices.Grow(w.next[:0], n)[:n] // where the next record of each term goes in order
	var records uint32
	for k := range w.entries {
		w.next[k] = records
		records += w.entries[k].records
	}
	w.order = slices.Grow(w.order[:0], int(records))[:records] // offsets of records in log
	for off := 0; off < len(w.log); off += 5 + int(w.log[off+4]) {
		k := w.log[off]
		w.order[w.next[k]] = uint32(off)
		w.next[k]++
	}
	p.docEnds, p.posEnds, p.last = make([]uint32, n), make([]uint32, n), make([]uint32, n)
	from := 0
	for k := range w.entries {
		c := int(w.entries[k].records)
		last := uint32(0)
		for _, off := range w.order[from : from+c] {
			r := w.log[off:]
			w.docs = binary.AppendUvarint(w.docs, uint64(r[1]-last))
			w.docs = binary.AppendUvarint(w.docs, uint64(r[2]))
			w.docs = binary.AppendUvarint(w.docs, uint64(r[3]))
			prev := uint32(0)
			for _, x := range r[5 : 5+r[4]] {
				w.pos = binary.AppendUvarint(w.pos, uint64(x-prev))
				prev = x
			}
			last = r[1]
		}
		from += c
		p.docEnds[k], p.posEnds[k], p.last[k] = uint32(len(w.docs)), uint32(len(w.pos)), last
	}
	// The index keeps these until Write: exactly their size.
	p.terms, p.ends = string(w.terms), slices.Clone(w.ends)
	p.docs, p.pos = slices.Clone(w.docs), slices.Clone(w.pos)
	return p
}

// scratch is what Prepare works in. It is reused from session to session,
// so that its map and lists are not grown anew each time.
type scratch struct {
	seen    map[string]int32 // term → its entry
	entries []entry
	terms   []byte
	ends    []uint32
	inDoc   []int32 // entries of terms in the document being read
	// log has a record per term per document: the term, the document, its
	// flags, the count, the number of positions and the positions.
	log         []uint32
	next, order []uint32
	docs, pos   []byte
}

// entry counts a term's occurrences in the document being read, so that
// a token costs one map lookup.
type entry struct {
	doc     int // the last document it occurred in, plus one
	count   int
	npos    int
	pos     [maxPos]int
	records uint32 // documents it occurs in
}

var scratches = sync.Pool{New: func() any { return &scratch{seen: map[string]int32{}} }}

func (w *scratch) reset() {
	clear(w.seen)
	w.entries, w.terms, w.ends, w.log = w.entries[:0], w.terms[:0], w.ends[:0], w.log[:0]
	w.docs, w.pos = w.docs[:0], w.pos[:0]
}

// Append adds a prepared session, or a part of one, to the index, and
// writes the blocks of excerpts it completes. Sessions must be appended
// in the site's order, a session's parts in theirs.
func (ix *Index) Append(p *Prepared) {
	if !p.more {
		row := sessionRow{Session: p.session, docStart: ix.docs}
		row.project = intern(&ix.projects, p.session.Project)
		row.agent = intern(&ix.agents, p.session.Agent)
		row.models = []int{} // [], not null, in the table
		for _, m := range p.session.Models {
			row.models = append(row.models, intern(&ix.models, m))
		}
		ix.sessions = append(ix.sessions, row)
	}
	from := uint32(0)
	for k, end := range p.ends {
		d, q := p.lists(k)
		first, w := binary.Uvarint(d)
		ix.lists.add(p.terms[from:end], ix.docs, first, d[w:], q, p.last[k])
		from = end
	}
	if ix.lists.full() {
		ix.lists.flush()
	}
	for i := range p.frags {
		if p.frags[i].rest != "" {
			p.frags[i].restFile = ix.addRest(ix.docs+i, p.frags[i].rest)
		}
	}
	ix.docs += len(p.frags)
	ix.frags = append(ix.frags, p.frags...)
	p.frags = nil
	for len(ix.frags) >= BlockDocs {
		ix.writeBlock(BlockDocs)
	}
}

// writeBlock writes the next block of excerpts, of the first n pending.
// Block b holds documents b*BlockDocs onwards, so its name needs no
// table. A block is {"s": [[page, title], …], "r": [[n, role, text, s],
// …]}: each row names its session in the block's list, which gives the
// page a result links to and the title it shows, so that titles are
// downloaded only for the results shown, with their excerpts, not in the
// eager table for every session. A row whose excerpt goes on past its
// text ends with the number of the file of rests (r/) that holds the rest.
func (ix *Index) writeBlock(n int) {
	type block struct {
		S [][2]string `json:"s"`
		R [][]any     `json:"r"`
	}
	b := block{R: make([][]any, n)}
	for i, f := range ix.frags[:n] {
		if k := len(b.S) - 1; k < 0 || b.S[k][0] != f.path {
			b.S = append(b.S, [2]string{f.path, cut(f.title, titleLen)})
		}
		b.R[i] = []any{f.n, f.role, f.text, len(b.S) - 1}
		if f.rest != "" {
			b.R[i] = append(b.R[i], f.restFile)
		}
	}
	ix.put("f/"+strconv.Itoa(ix.blocks)+".json", ix.marshal(b))
	ix.blocks++
	ix.frags = slices.Delete(ix.frags, 0, n)
}

// addRest adds the rest of a document's excerpt to the file of rests
// being filled, and returns the file's number. A file of rests is
// {"document": rest, …}, of documents one after another, and about
// restTarget bytes: a result whose match lies past the start of its
// excerpt loads the one file, a few kilobytes, and only such a result
// does. Most rests are a few hundred bytes, so a file a block (or a
// document) made many files of a few, and others of sixteen long ones.
func (ix *Index) addRest(doc int, rest string) int {
	if ix.rests == nil {
		ix.rests = map[int]string{}
	}
	ix.rests[doc] = rest
	ix.restSize += len(rest)
	n := ix.restFiles
	if ix.restSize >= restTarget {
		ix.writeRests()
	}
	return n
}

// writeRests writes the file of rests being filled, if it holds any.
func (ix *Index) writeRests() {
	if len(ix.rests) == 0 {
		return
	}
	ix.put("r/"+strconv.Itoa(ix.restFiles)+".json", ix.marshal(ix.rests))
	ix.rests, ix.restSize = nil, 0
	ix.restFiles++
}

// marshal is v as JSON; a failure is Write's to report.
func (ix *Index) marshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		ix.mu.Lock()
		ix.err = cmp.Or(ix.err, err)
		ix.mu.Unlock()
	}
	return data
}

// put writes a file of the index in the background, adding it to the
// build id; Write waits for it and reports the first failure.
func (ix *Index) put(name string, data []byte) {
	ix.build.Write(data)
	ix.writing <- struct{}{} // a few at a time
	ix.pending.Go(func() {
		defer func() { <-ix.writing }()
		if err := ix.write(name, data); err != nil {
			ix.mu.Lock()
			ix.err = cmp.Or(ix.err, err)
			ix.mu.Unlock()
		}
	})
}

// appendInts appends varints as a JSON array of the integers the client
// reads, straight from the bytes.
func appendInts(out, varints []byte) []byte {
	out = append(out, '[')
	for j := 0; len(varints) > 0; j++ {
		v, n := binary.Uvarint(varints)
		if j > 0 {
			out = append(out, ',')
		}
		if v < 10 { // most are: deltas, flags, counts
			out = append(out, byte('0'+v))
		} else {
			out = strconv.AppendUint(out, v, 10)
		}
		varints = varints[n:]
	}
	return append(out, ']')
}

// shardJSON writes a shard's terms and postings as {"t": terms, "p":
// postings}, and their positions as a list in the same order.
func shardJSON(terms []string, postings, pos [][]byte) (shard, positions []byte) {
	shard = []byte(`{"t":`)
	t, _ := json.Marshal(terms)
	shard = append(shard, t...)
	shard = append(shard, `,"p":[`...)
	positions = []byte{'['}
	for i, p := range postings {
		if i > 0 {
			shard = append(shard, ',')
			positions = append(positions, ',')
		}
		shard = appendInts(shard, p)
		positions = appendInts(positions, pos[i])
	}
	return append(shard, "]}"...), append(positions, ']')
}

// ints decodes varints, for tests.
func ints(b []byte) []int {
	var out []int
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		out = append(out, int(v))
		b = b[n:]
	}
	return out
}

func intern(list *[]string, s string) int {
	if i := slices.Index(*list, s); i >= 0 {
		return i
	}
	*list = append(*list, s)
	return len(*list) - 1
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// indexed returns the parts of a document's text that are indexed: all of
// it, or of a long text its start and its end, cut between words.
func indexed(text string) []string {
	if len(text) <= HeadBytes+TailBytes {
		return []string{text}
	}
	head, tail := text[:HeadBytes], text[len(text)-TailBytes:]
	if i := strings.LastIndexAny(head, " \t\n"); i > 0 {
		head = head[:i]
	}
	if i := strings.IndexAny(tail, " \t\n"); i >= 0 {
		tail = tail[i:]
	}
	return []string{head, tail}
}

// excerpt is what a result may show of a document, its runs of white
// space made one space: the start its block holds, at most excerptLen
// bytes cut between words (or characters, in a word that long), and the
// rest. Of a text the index reads a part of, only that part.
func excerpt(d Doc) (start, rest string) {
	parts := []string{d.Excerpt}
	if d.Excerpt == "" {
		parts = indexed(d.Text)
	}
	var b []byte
	space := false
	for _, s := range parts {
		for i := 0; i < len(s); {
			r, n := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(s[i:])
			}
			if r < utf8.RuneSelf && asciiSpace[r] || r >= utf8.RuneSelf && unicode.IsSpace(r) {
				space = len(b) > 0
				i += n
				continue
			}
			if len(b) >= maxExcerpt {
				break
			}
			if space {
				b = append(b, ' ')
				space = false
			}
			if r >= utf8.RuneSelf {
				b = utf8.AppendRune(b, r)
				i += n
				continue
			}
			// A run of ASCII that is not space, as far as the excerpt
			// takes it, in one copy.
			j := i + 1
			for j < len(s) && j-i < maxExcerpt-len(b) && s[j] < utf8.RuneSelf && !asciiSpace[s[j]] {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
		}
		space = len(b) > 0
	}
	t := string(b)
	if len(t) <= excerptLen {
		return t, ""
	}
	end := excerptLen
	for !utf8.RuneStart(t[end]) {
		end--
	}
	if i := strings.LastIndexByte(t[:end+1], ' '); i > excerptLen/2 {
		end = i
	}
	return t[:end], t[end:]
}

// maxExcerpt bounds what is kept of a document's excerpt: what the index
// reads of it, with room for what Markdown made plain and the newlines
// between a message's parts.
const maxExcerpt = HeadBytes + TailBytes + excerptLen

// Tokenize splits text into the terms the index and the client agree on:
// runs of letters, digits and underscores, lower-cased; each Han, kana or
// Hangul character is a term of its own. Words joined by '.', '/' or '-'
// (a path, a file name, a version, a model name) are also emitted whole,
// as a compound, and so is what follows each of its last three '/': so
// "a/b/c.go" gives a, b, c, go, then a/b/c.go, b/c.go and c.go, and a
// file is found by its name, its directory or its whole path, however
// deep it lies. A compound is emitted
// after its last word. Tokenize stops when emit returns false; tok is
// valid only during the call. The client's scan in search.js must match
// it.
func Tokenize(text string, emit func(tok []byte, compound bool) bool) {
	t := tokenizer{text: text, emit: emit, start: -1, cStart: -1}
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !t.other(i, r) {
				return
			}
			i += size
			continue
		}
		// ASCII, most of every session: read here, with no call to decode.
		ok := true
		switch {
		case wordByte[c]:
			t.word(i)
		case c == '.' || c == '/' || c == '-':
			ok = t.join(i, c == '/')
		default:
			ok = t.separate(i)
		}
		if !ok {
			return
		}
		i++
	}
	if t.flush(len(text)) {
		t.endCompound()
	}
}

// other reads the character r past ASCII at i: an ideograph is a term of
// its own.
func (t *tokenizer) other(i int, r rune) bool {
	switch {
	case isIdeograph(r):
		return t.separate(i) && t.emit(utf8.AppendRune(t.buf[:0], r), false)
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		t.word(i)
		return true
	}
	return t.separate(i)
}

// separate ends the word and the compound being read at i.
func (t *tokenizer) separate(i int) bool { return t.flush(i) && t.endCompound() }

// tokenizer is the state of Tokenize: the word being read, and the
// compound it may continue.
type tokenizer struct {
	text       string
	emit       func([]byte, bool) bool
	buf        []byte // the term being emitted, lower-cased
	start      int    // of the word being read, or -1
	cStart     int    // of the compound's first word, or -1
	cEnd       int    // end of its last word
	cWords     int    // words in it
	joined     bool   // only joiners since its last word: the next word continues it
	slash      bool   // one of them was a '/'
	afterSlash []int  // starts of its words that follow a '/'
	slashWords []int  // how many words it had before each of them
}

func (t *tokenizer) word(i int) {
	if t.start >= 0 {
		return
	}
	t.start = i
	if t.cStart >= 0 && t.joined {
		if t.slash {
			t.afterSlash = append(t.afterSlash, i)
			t.slashWords = append(t.slashWords, t.cWords)
		}
		t.cWords++
	} else {
		t.cStart, t.cWords = i, 1
		t.afterSlash, t.slashWords = t.afterSlash[:0], t.slashWords[:0]
	}
	t.joined, t.slash = false, false
}

// flush ends the word being read at end and emits it.
func (t *tokenizer) flush(end int) bool {
	if t.start < 0 {
		return true
	}
	tok := t.text[t.start:end]
	t.start = -1
	if len(tok) > maxTokenLen {
		t.cStart = -1 // nor is a compound of it
		return true
	}
	t.cEnd, t.joined, t.slash = end, true, false
	return t.emitLower(tok, false)
}

// emitLower emits tok lower-cased, in a buffer it reuses: most terms
// are ASCII and are lowered here without allocating.
func (t *tokenizer) emitLower(tok string, compound bool) bool {
	b := t.buf[:0]
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c >= utf8.RuneSelf {
			b = append(b[:0], strings.ToLower(tok)...)
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	t.buf = b
	return t.emit(b, compound)
}

// join reads a joiner at i.
func (t *tokenizer) join(i int, slash bool) bool {
	if !t.flush(i) {
		return false
	}
	t.slash = t.slash || slash
	return true
}

// endCompound emits the compound that has ended, if it joined two words
// or more, and its parts after each '/'.
func (t *tokenizer) endCompound() bool {
	start, words := t.cStart, t.cWords
	t.cStart, t.joined = -1, false
	if start < 0 || words < 2 {
		return true
	}
	emit := func(from int) bool {
		if t.cEnd-from > maxTokenLen {
			return true
		}
		return t.emitLower(t.text[from:t.cEnd], true)
	}
	if !emit(start) {
		return false
	}
	for k := max(0, len(t.afterSlash)-maxSuffixes); k < len(t.afterSlash); k++ {
		if words-t.slashWords[k] >= 2 && !emit(t.afterSlash[k]) {
			return false
		}
	}
	return true
}

// wordByte marks the ASCII bytes of terms: letters, digits, underscore.
// asciiSpace is unicode.IsSpace of the ASCII characters.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

func isIdeograph(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// merge joins each term's lists from every session, in order: the
// postings and the positions of term i are docs[i] and pos[i]. The first
// document of each session's list is re-encoded as a delta from the last
// of the session before; the rest are deltas already and are copied. The
// lists are measured first, so that all of them fill two allocations, and
// the terms are split among the cores.
// term is a term and its number, for sorting.
type term struct {
	t  string
	id int32
}

// parallel runs f(part, parts) for each part on its own core, and waits.
func parallel(f func(part, parts int)) {
	parallelN(runtime.GOMAXPROCS(0), f)
}

// parallelN runs f(part, parts) for parts goroutines, and waits.
func parallelN(parts int, f func(part, parts int)) {
	var wg sync.WaitGroup
	for part := range parts {
		wg.Go(func() { f(part, parts) })
	}
	wg.Wait()
}

// sortTerms sorts terms by their text: bucketed by first byte, then the
// buckets sorted on every core.
func sortTerms(terms []term) []term {
	// Partitioned by first byte in place (an American flag sort's first
	// pass), not into a copy: at millions of terms a copy is 80 MB more at
	// the build's peak of memory.
	var count [257]int
	for _, t := range terms {
		count[int(t.t[0])+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	next := count
	for b := range 256 {
		for next[b] < count[b+1] {
			t := terms[next[b]]
			if d := int(t.t[0]); d != b {
				terms[next[b]], terms[next[d]] = terms[next[d]], t
				next[d]++
				continue
			}
			next[b]++
		}
	}
	var bucket atomic.Int64
	parallel(func(int, int) {
		for b := bucket.Add(1) - 1; b < 256; b = bucket.Add(1) - 1 {
			slices.SortFunc(terms[count[b]:count[b+1]], func(x, y term) int { return strings.Compare(x.t, y.t) })
		}
	})
	return terms
}

func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// Write writes the rest of the index: the last excerpts, the shards of
// terms, the table of sessions and the meta file.
func (ix *Index) Write() error {
	if len(ix.frags) > 0 {
		ix.writeBlock(len(ix.frags))
	}
	ix.writeRests()
	// Terms come from the spill in order, with their lists whole, and are
	// cut into shards as they come; a group of PosGroup shards at a time
	// is encoded and written by other goroutines while the next is read.
	// Shards are named by number; the meta file lists where each starts,
	// as the shortest prefix of its first term that sorts after the last
	// term of the shard before, which keeps the meta file small however
	// many shards there are.
	var (
		starts []string
		groups []*group
		g      *group
		sh     *shard
		prev   string
		size   int
	)
	jobs := make(chan *group, 4)
	var workers sync.WaitGroup
	// Writing a file mostly waits on the file system: more writers than
	// cores keep the cores busy.
	for range 4 * runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			for g := range jobs {
				ix.encode(g)
			}
		})
	}
	err := ix.lists.each(func(t string, docs, pos []byte) {
		if sh == nil {
			if g == nil {
				g = &group{n: len(groups)}
				groups = append(groups, g)
			}
			starts = append(starts, shortestAfter(prev, t, len(starts) == 0))
			sh = &shard{}
			g.shards = append(g.shards, sh)
			size = 0
		}
		sh.terms = append(sh.terms, t)
		sh.docs, sh.pos = append(sh.docs, docs...), append(sh.pos, pos...)
		sh.docEnds, sh.posEnds = append(sh.docEnds, len(sh.docs)), append(sh.posEnds, len(sh.pos))
		prev = t
		size += len(t) + 3*len(docs) // a varint byte is about three bytes of JSON
		if size >= shardTarget {
			sh = nil
			if len(g.shards) == PosGroup {
				jobs <- g
				g = nil
			}
		}
	})
	if g != nil {
		jobs <- g
	}
	close(jobs)
	workers.Wait()
	ix.lists.close()
	ix.pending.Wait()
	errs := []error{err, ix.err}
	build := ix.build
	for _, g := range groups {
		errs = append(errs, g.err)
		for _, sum := range g.sums {
			build.Write(sum[:])
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ix.writeTables(build, starts)
}

// A group is PosGroup shards, whose positions share a file.
type group struct {
	n      int // shards n*PosGroup onwards
	shards []*shard
	sums   [][sha256.Size]byte // of each shard, for the build id
	err    error
}

// shard is a shard's terms and their lists, one after another.
type shard struct {
	terms            []string
	docs, pos        []byte
	docEnds, posEnds []int
}

// encode encodes and writes the shards of g and their positions.
func (ix *Index) encode(g *group) {
	positions := make([][]byte, len(g.shards))
	g.sums = make([][sha256.Size]byte, len(g.shards))
	var errs []error
	for j, sh := range g.shards {
		docs, pos := make([][]byte, len(sh.terms)), make([][]byte, len(sh.terms))
		d, q := 0, 0
		for k := range sh.terms {
			docs[k], pos[k] = sh.docs[d:sh.docEnds[k]], sh.pos[q:sh.posEnds[k]]
			d, q = sh.docEnds[k], sh.posEnds[k]
		}
		shard, p := shardJSON(sh.terms, docs, pos)
		h := sha256.New()
		h.Write(shard)
		h.Write(p)
		h.Sum(g.sums[j][:0])
		positions[j] = p
		errs = append(errs, ix.write("t/"+strconv.Itoa(g.n*PosGroup+j)+".json", shard))
	}
	g.shards = nil
	// The positions of the group: a list of each shard's.
	n := 1
	for _, p := range positions {
		n += len(p) + 1
	}
	data := append(make([]byte, 0, n), '[')
	for j, p := range positions {
		if j > 0 {
			data = append(data, ',')
		}
		data = append(data, p...)
	}
	data = append(data, ']')
	errs = append(errs, ix.write("q/"+strconv.Itoa(g.n)+".json", data))
	g.err = errors.Join(errs...)
}

// writeTables writes the table of sessions and the meta file.
func (ix *Index) writeTables(build hash.Hash, starts []string) error {
	// The eager table: a row per session with what filters and ranking
	// need; titles and pages come with the excerpts (they were three
	// quarters of the table, which every query downloads).
	// Days and first documents are written as deltas from the row before,
	// small numbers that the client adds up as it reads the table.
	rows := make([][5]any, len(ix.sessions))
	day, doc := 0, 0
	for i, s := range ix.sessions {
		rows[i] = [5]any{s.project, s.agent, s.models, s.Day - day, s.docStart - doc}
		day, doc = s.Day, s.docStart
	}
	sessions, err := json.Marshal(struct {
		Projects []string `json:"projects"`
		Agents   []string `json:"agents"`
		Models   []string `json:"models"`
		Kinds    []string `json:"kinds"`
		Sessions [][5]any `json:"sessions"`
	}{list(ix.projects), list(ix.agents), list(ix.models), list(ix.kinds), rows})
	if err != nil {
		return err
	}
	build.Write(sessions)
	sessionsFile := "sessions." + shortHash(sessions) + ".json"
	if err := ix.write(sessionsFile, sessions); err != nil {
		return err
	}
	// Shards, positions and excerpt blocks are named by number, not content: the
	// build id in their URLs keeps browsers from reading a stale one.
	meta, err := json.Marshal(struct {
		Version  int      `json:"version"`
		Build    string   `json:"build"`
		Docs     int      `json:"docs"`
		Block    int      `json:"block"`
		MaxPos   int      `json:"maxPos"`
		PosGroup int      `json:"posGroup"`
		Sessions string   `json:"sessions"`
		Shards   []string `json:"shards"`
	}{Version, hex.EncodeToString(build.Sum(nil)[:6]), ix.docs, BlockDocs, maxPos, PosGroup, sessionsFile, starts})
	if err != nil {
		return err
	}
	return ix.write("meta.json", meta)
}

// list is a list for the client, [] when it is empty: the page fills
// its filters from the table's lists, and a site whose sessions name no
// model had "models": null, which failed the search page as it loaded.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// shortestAfter returns the shortest prefix of first that sorts after
// prev: the start of a shard, for the meta file. The first shard starts
// at "".
func shortestAfter(prev, first string, isFirst bool) string {
	if isFirst {
		return ""
	}
	for i := range first {
		if i > 0 && first[:i] > prev { // cut at rune boundaries only: the prefix must stay valid UTF-8
			return first[:i]
		}
	}
	return first
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// MarshalBinary encodes a prepared session for the build cache: lengths
// and bytes, read back without reflection (gob spent more time decoding
// the term map than building it anew).
func (p *Prepared) MarshalBinary() ([]byte, error) {
	sj, err := json.Marshal(p.session)
	if err != nil {
		return nil, err
	}
	b := wire.AppendString(nil, string(sj))
	more := uint64(0)
	if p.more {
		more = 1
	}
	b = binary.AppendUvarint(b, more)
	b = wire.AppendString(b, p.terms)
	b = appendUints(b, p.ends)
	b = wire.AppendString(b, string(p.docs))
	b = appendUints(b, p.docEnds)
	b = wire.AppendString(b, string(p.pos))
	b = appendUints(b, p.posEnds)
	b = appendUints(b, p.last)
	b = binary.AppendUvarint(b, uint64(len(p.frags)))
	for _, f := range p.frags {
		b = binary.AppendUvarint(b, uint64(f.n))
		b = binary.AppendUvarint(b, uint64(f.role))
		b = wire.AppendString(b, f.text)
		b = wire.AppendString(b, f.rest)
	}
	return b, nil
}

func appendUints(b []byte, v []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

// UnmarshalBinary decodes what MarshalBinary encoded. The lists are
// windows on data, which must not change.
func (p *Prepared) UnmarshalBinary(data []byte) error {
	r := wire.NewReader(data, errPrepared)
	if err := json.Unmarshal(r.Bytes(), &p.session); err != nil {
		return err
	}
	p.more = r.Uvarint() == 1
	p.terms = string(r.Bytes())
	p.ends = uints(r)
	p.docs = r.Bytes()
	p.docEnds = uints(r)
	p.pos = r.Bytes()
	p.posEnds = uints(r)
	p.last = uints(r)
	n := int(r.Uvarint())
	p.frags = make([]fragment, 0, min(n, len(data)))
	for range n {
		f := fragment{n: int(r.Uvarint()), role: int(r.Uvarint()), path: p.session.Path, title: p.session.Title}
		f.text, f.rest = string(r.Bytes()), string(r.Bytes())
		p.frags = append(p.frags, f)
	}
	if r.Err() == nil && !p.consistent() {
		r.Fail()
	}
	return r.Err()
}

// consistent reports whether the ends of terms and lists fit what they
// index, so that a damaged cache entry cannot make lists panic.
func (p *Prepared) consistent() bool {
	n := len(p.ends)
	if len(p.docEnds) != n || len(p.posEnds) != n || len(p.last) != n {
		return false
	}
	var t, d, q uint32
	for k := range n {
		if p.ends[k] < t || p.docEnds[k] < d || p.posEnds[k] < q {
			return false
		}
		t, d, q = p.ends[k], p.docEnds[k], p.posEnds[k]
	}
	return int(t) <= len(p.terms) && int(d) <= len(p.docs) && int(q) <= len(p.pos)
}

// errPrepared is what reading a prepared session that is not one gives.
var errPrepared = errors.New("search: bad prepared session")

// uints reads what appendUints wrote.
func uints(r *wire.Reader) []uint32 {
	v := make([]uint32, r.Count(1)) // each takes a byte at least
	for i := range v {
		v[i] = uint32(r.Uvarint())
	}
	return v
}
