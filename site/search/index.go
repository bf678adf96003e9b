// Package search builds the site's static search index: terms sorted and
// split into shards, so a query downloads only the shards of its terms, a
// small meta file of each shard's term range, an excerpt file per session,
// and an eager table of sessions for filters.
//
// A document is one message. Its postings carry the message's role and tool
// kinds, so filters need no other download, and the positions of each term,
// so phrases can be matched.
package search

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version is written into the meta file; the client refuses another.
const Version = 1

const (
	maxTokens = 2000 // indexed per document: past it a long output only adds noise and size
	maxPos    = 8    // positions kept per term per document: enough to rank and to match phrases,
	// and a common word in a long output no longer costs every reader its every position
	titleLen    = 60       // characters of a title in the eager table
	pathBlock   = 32       // sessions per file of page paths
	maxTokenLen = 64       // longer runs (base64, hashes of hashes) are not words anyone types
	excerptLen  = 500      // bytes of a document kept for excerpts
	shardTarget = 32 << 10 // bytes of JSON per shard before a new one starts
	BlockDocs   = 4        // documents per excerpt file: a result downloads one small block
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
}

// Session describes a session for results and filters.
type Session struct {
	Title, Project, Agent, Model string
	Path                         string // its page, relative to the site root
	Day                          int    // the day it started, as days since 1970-01-01; 0 if unknown
}

// Index accumulates documents. Sessions must be added in the site's order
// for the output to be deterministic; it is not safe for concurrent use.
type Index struct {
	kinds                    []string
	sessions                 []sessionRow
	projects, agents, models []string
	terms                    map[string]*posting
	docs                     int
	frags                    []fragment // per document
}

type sessionRow struct {
	Session
	project, agent, model int
	docStart              int
}

type fragment struct {
	n    int
	role int
	text string
}

// posting is the varint-encoded occurrences of a term: for each document,
// the delta of its id, its flags (role | kinds<<2), the count of positions
// and their deltas.
type posting struct {
	buf     []byte
	lastDoc int
	docs    int
}

// New returns an empty index. kinds names the tool kinds in the order of
// Doc.Kinds bits.
func New(kinds []string) *Index {
	return &Index{kinds: kinds, terms: map[string]*posting{}}
}

// Prepared is a session tokenized and ready to append. Preparing is the
// costly part of indexing and is safe to run for many sessions at once.
type Prepared struct {
	session Session
	terms   map[string]*posting // doc ids local to the session, from 0
	frags   []fragment
}

// Prepare tokenizes a session's documents.
func Prepare(s Session, docs []Doc) *Prepared {
	p := &Prepared{session: s, terms: map[string]*posting{}}
	positions := map[string][]int{}
	var order []string
	for id, d := range docs {
		clear(positions)
		order = order[:0]
		i := 0
		Tokenize(d.Text, func(tok string) bool {
			pos, seen := positions[tok]
			if !seen {
				order = append(order, tok)
			}
			if len(pos) < maxPos {
				positions[tok] = append(pos, i)
			}
			i++
			return i < maxTokens
		})
		flags := d.Role | int(d.Kinds)<<2
		for _, tok := range order {
			pt := p.terms[tok]
			if pt == nil {
				pt = &posting{}
				p.terms[tok] = pt
			}
			pt.add(id, flags, positions[tok])
		}
		p.frags = append(p.frags, fragment{n: d.N, role: d.Role, text: excerpt(d.Text)})
	}
	return p
}

// Append adds a prepared session to the index. Sessions must be appended
// in the site's order.
func (ix *Index) Append(p *Prepared) {
	row := sessionRow{Session: p.session, docStart: ix.docs}
	row.project = intern(&ix.projects, p.session.Project)
	row.agent = intern(&ix.agents, p.session.Agent)
	row.model = intern(&ix.models, p.session.Model)
	ix.sessions = append(ix.sessions, row)
	for tok, local := range p.terms {
		g := ix.terms[tok]
		if g == nil {
			g = &posting{}
			ix.terms[tok] = g
		}
		// The local list starts with its first document's id (a delta from
		// 0); re-encode that one delta, the rest are relative and stay.
		first, n := binary.Uvarint(local.buf)
		g.buf = binary.AppendUvarint(g.buf, uint64(ix.docs+int(first)-g.lastDoc))
		g.buf = append(g.buf, local.buf[n:]...)
		g.lastDoc = ix.docs + local.lastDoc
		g.docs += local.docs
	}
	ix.docs += len(p.frags)
	ix.frags = append(ix.frags, p.frags...)
}

func (p *posting) add(doc, flags int, pos []int) {
	put := func(v int) { p.buf = binary.AppendUvarint(p.buf, uint64(v)) }
	put(doc - p.lastDoc)
	put(flags)
	put(len(pos))
	last := 0
	for _, x := range pos {
		put(x - last)
		last = x
	}
	p.lastDoc = doc
	p.docs++
}

// shardJSON writes a shard as {"t": terms, "p": postings}, each posting the
// flat list of integers the client reads, straight from the varints.
func shardJSON(terms []string, postings [][]byte) []byte {
	out := []byte(`{"t":`)
	t, _ := json.Marshal(terms)
	out = append(out, t...)
	out = append(out, `,"p":[`...)
	for i, p := range postings {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '[')
		for j := 0; len(p) > 0; j++ {
			v, n := binary.Uvarint(p)
			if j > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendUint(out, v, 10)
			p = p[n:]
		}
		out = append(out, ']')
	}
	return append(out, "]}"...)
}

// ints decodes the posting into the flat list the client reads.
func (p *posting) ints() []int {
	var out []int
	b := p.buf
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

func excerpt(s string) string {
	// Only the start is kept: do not walk a long output to the end.
	if len(s) > 3*excerptLen {
		s = s[:3*excerptLen]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= excerptLen {
		return s
	}
	cut := excerptLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Tokenize splits text into the terms the index and the client agree on:
// runs of letters, digits and underscores, lower-cased; each Han, kana or
// Hangul character is a term of its own. It stops when emit returns false.
// The client's tokenize in search.js must match it.
func Tokenize(text string, emit func(string) bool) {
	start := -1
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		tok := text[start:end]
		start = -1
		if len(tok) > maxTokenLen {
			return true
		}
		return emit(strings.ToLower(tok))
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII, most of every session: no decoding
			if wordByte[c] {
				if start < 0 {
					start = i
				}
			} else if !flush(i) {
				return
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isIdeograph(r):
			if !flush(i) || !emit(string(r)) {
				return
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		default:
			if !flush(i) {
				return
			}
		}
		i += size
	}
	flush(len(text))
}

// wordByte marks the ASCII bytes of terms: letters, digits, underscore.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

func isIdeograph(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Write writes the index with write(name, data): names are relative to the
// index's directory.
func (ix *Index) Write(write func(name string, data []byte) error) error {
	terms := make([]string, 0, len(ix.terms))
	for t := range ix.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)

	// Shards are named by number; the meta file lists where each starts,
	// as the shortest prefix of its first term that sorts after the last
	// term of the shard before, which keeps the meta file small however
	// many shards there are.
	var starts []string
	var names []string
	var lists [][]byte
	size, prevLast := 0, ""
	build := sha256.New()
	flush := func() error {
		if len(names) == 0 {
			return nil
		}
		data := shardJSON(names, lists)
		starts = append(starts, shortestAfter(prevLast, names[0], len(starts) == 0))
		prevLast = names[len(names)-1]
		build.Write(data)
		file := "t/" + strconv.Itoa(len(starts)-1) + ".json"
		names, lists, size = nil, nil, 0
		return write(file, data)
	}
	for _, t := range terms {
		buf := ix.terms[t].buf
		names = append(names, t)
		lists = append(lists, buf)
		size += len(t) + 3*len(buf) // a varint byte is about three bytes of JSON
		if size >= shardTarget {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}

	// Excerpts in blocks of BlockDocs documents: block b holds documents
	// b*BlockDocs onwards, so its name needs no table.
	for b := 0; b*BlockDocs < len(ix.frags); b++ {
		var rows [][3]any
		for _, f := range ix.frags[b*BlockDocs : min((b+1)*BlockDocs, len(ix.frags))] {
			rows = append(rows, [3]any{f.n, f.role, f.text})
		}
		data, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		build.Write(data)
		if err := write("f/"+strconv.Itoa(b)+".json", data); err != nil {
			return err
		}
	}

	// The eager table: a row per session with what filters and result
	// titles need; the page paths, needed only for the results shown, are
	// in small blocks.
	rows := make([][6]any, len(ix.sessions))
	for i, s := range ix.sessions {
		rows[i] = [6]any{cut(s.Title, titleLen), s.project, s.agent, s.model, s.Day, s.docStart}
	}
	for b := 0; b*pathBlock < len(ix.sessions); b++ {
		var paths []string
		for _, s := range ix.sessions[b*pathBlock : min((b+1)*pathBlock, len(ix.sessions))] {
			paths = append(paths, s.Path)
		}
		data, err := json.Marshal(paths)
		if err != nil {
			return err
		}
		build.Write(data)
		if err := write("p/"+strconv.Itoa(b)+".json", data); err != nil {
			return err
		}
	}
	sessions, err := json.Marshal(struct {
		Projects []string `json:"projects"`
		Agents   []string `json:"agents"`
		Models   []string `json:"models"`
		Kinds    []string `json:"kinds"`
		Sessions [][6]any `json:"sessions"`
	}{ix.projects, ix.agents, ix.models, ix.kinds, rows})
	if err != nil {
		return err
	}
	build.Write(sessions)
	sessionsFile := "sessions." + hash(sessions) + ".json"
	if err := write(sessionsFile, sessions); err != nil {
		return err
	}
	// Shards and excerpt blocks are named by number, not content: the
	// build id in their URLs keeps browsers from reading a stale one.
	meta, err := json.Marshal(struct {
		Version  int      `json:"version"`
		Build    string   `json:"build"`
		Docs     int      `json:"docs"`
		Block    int      `json:"block"`
		Paths    int      `json:"paths"`
		Sessions string   `json:"sessions"`
		Shards   []string `json:"shards"`
	}{Version, hex.EncodeToString(build.Sum(nil)[:6]), ix.docs, BlockDocs, pathBlock, sessionsFile, starts})
	if err != nil {
		return err
	}
	return write("meta.json", meta)
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

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// Stats describe an index, for benchmarks.
func (ix *Index) Stats() string {
	var postings int
	for _, p := range ix.terms {
		postings += len(p.buf)
	}
	return fmt.Sprintf("%d sessions, %d documents, %d terms, %s of postings",
		len(ix.sessions), ix.docs, len(ix.terms), strconv.Itoa(postings>>10)+" KiB")
}

// MarshalBinary encodes a prepared session for the build cache: lengths
// and bytes, read back without reflection (gob spent more time decoding
// the term map than building it anew).
func (p *Prepared) MarshalBinary() ([]byte, error) {
	sj, err := json.Marshal(p.session)
	if err != nil {
		return nil, err
	}
	b := binary.AppendUvarint(nil, uint64(len(sj)))
	b = append(b, sj...)
	b = binary.AppendUvarint(b, uint64(len(p.terms)))
	for t, pt := range p.terms {
		b = appendString(b, t)
		b = appendString(b, string(pt.buf))
		b = binary.AppendUvarint(b, uint64(pt.lastDoc))
		b = binary.AppendUvarint(b, uint64(pt.docs))
	}
	b = binary.AppendUvarint(b, uint64(len(p.frags)))
	for _, f := range p.frags {
		b = binary.AppendUvarint(b, uint64(f.n))
		b = binary.AppendUvarint(b, uint64(f.role))
		b = appendString(b, f.text)
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (p *Prepared) UnmarshalBinary(data []byte) error {
	r := reader{b: data}
	if err := json.Unmarshal(r.bytes(), &p.session); err != nil {
		return err
	}
	n := r.uint()
	p.terms = make(map[string]*posting, min(n, len(data)))
	for range n {
		t := string(r.bytes())
		pt := &posting{buf: r.bytes(), lastDoc: r.uint(), docs: r.uint()}
		p.terms[t] = pt
	}
	n = r.uint()
	p.frags = make([]fragment, 0, min(n, len(data)))
	for range n {
		p.frags = append(p.frags, fragment{n: r.uint(), role: r.uint(), text: string(r.bytes())})
	}
	return r.err
}

// reader reads what MarshalBinary wrote, failing once on bad input.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uint() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) bytes() []byte {
	n := r.uint()
	if n > len(r.b) {
		r.fail()
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errors.New("search: bad prepared session")
	}
	r.b = nil
}
