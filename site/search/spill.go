package search

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"strings"
)

// spill holds the index's terms and lists from Append to Write a run at a
// time: a run gathers the lists of sessions by term in memory, and past
// spillMemory it is sorted by term and written to a temporary file, where
// Write merges the runs. So neither the lists nor the table of terms is
// ever in memory whole: at 10,000 sessions the table alone was millions
// of terms, a few hundred megabytes that every collection marked.
type spill struct {
	ids   map[string]int32 // the run's terms → their numbers in it
	terms []termLists      // by number in the run
	text  []string         // by number in the run
	chars strings.Builder  // the bytes of the run's terms (see keep)
	buf   []byte           // the run's records, in the order they were added
	f     *os.File
	name  string  // the file's name, while it has one to remove
	ends  []int64 // where each run written ends in f
	err   error
}

// termLists is what a run keeps of a term's lists: their sizes in bytes,
// and the last document it occurs in.
type termLists struct{ docs, pos, last uint32 }

// spillMemory is what a run holds, as full counts it: the heap holds about
// twice as much (the growth of buf, the map of terms). At 10,000 sessions
// runs of 16 MB rather than 32 left 25 MB less live and a twentieth less
// CPU, the index the same. A variable for the tests to make small.
var spillMemory = 16 << 20

// add adds the lists of a term in one session: its postings, of which
// the first document is first (counted from the session's first
// document, at base) and the rest is docs, its positions and last, its
// last document.
func (s *spill) add(t string, base int, first uint64, docs, pos []byte, last uint32) {
	if s.ids == nil {
		s.ids = map[string]int32{}
	}
	id, ok := s.ids[t]
	if !ok {
		id = int32(len(s.terms))
		t = s.keep(t) // a window would keep the session's terms
		s.ids[t] = id
		s.terms = append(s.terms, termLists{})
		s.text = append(s.text, t)
	}
	// The first document is counted from the term's last in the run
	// before it, or from 0 in a run's first: Write counts it on from the
	// runs before.
	tl := &s.terms[id]
	delta := uint64(base) + first - uint64(tl.last)
	s.buf = binary.AppendUvarint(s.buf, uint64(id))
	s.buf = binary.AppendUvarint(s.buf, delta)
	s.buf = binary.AppendUvarint(s.buf, uint64(len(docs)))
	s.buf = append(s.buf, docs...)
	s.buf = binary.AppendUvarint(s.buf, uint64(len(pos)))
	s.buf = append(s.buf, pos...)
	tl.docs += uint32(uvarintLen(delta) + len(docs))
	tl.pos += uint32(len(pos))
	tl.last = uint32(base) + last
}

// keep copies t into the run's chunk of term bytes. A run holds 100,000s
// of terms: copied into chunks, they are a few objects for the collector
// to mark on every cycle, not one a term scattered among the build's
// garbage.
func (s *spill) keep(t string) string {
	if s.chars.Cap()-s.chars.Len() < len(t) {
		s.chars = strings.Builder{}
		s.chars.Grow(max(termChunk, len(t)))
	}
	n := s.chars.Len()
	s.chars.WriteString(t) // within its capacity: the bytes written stay where they are
	return s.chars.String()[n:]
}

// termChunk is the size of the chunks keep copies terms into.
const termChunk = 64 << 10

// full reports whether the run should be written out: its records, and
// about 40 bytes a term for the table of its terms.
func (s *spill) full() bool { return len(s.buf)+40*len(s.terms) >= spillMemory }

// run writes the run out: each term in order, with its lists whole.
func (s *spill) run(w io.Writer) error {
	order := make([]term, len(s.text))
	for i, t := range s.text {
		order[i] = term{t, int32(i)}
	}
	order = sortTerms(order)
	// Each term's records, in the order they were added: offsets into
	// buf, grouped by term (a counting sort).
	start := make([]uint32, len(s.terms)+1)
	var recs, ids []uint32
	for off := 0; off < len(s.buf); {
		id, _, next := s.at(off)
		start[id+1]++
		recs, ids = append(recs, uint32(off)), append(ids, uint32(id))
		off = next
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	at := slices.Clone(start)
	grouped := make([]uint32, len(recs))
	for i, off := range recs {
		grouped[at[ids[i]]] = off
		at[ids[i]]++
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n []byte
	for _, t := range order {
		tl := s.terms[t.id]
		n = binary.AppendUvarint(n[:0], uint64(len(t.t)))
		n = append(n, t.t...)
		n = binary.AppendUvarint(n, uint64(tl.last))
		n = binary.AppendUvarint(n, uint64(tl.docs))
		bw.Write(n)
		mine := grouped[start[t.id]:start[t.id+1]]
		for _, off := range mine {
			_, r, _ := s.at(int(off))
			bw.Write(binary.AppendUvarint(n[:0], r.delta))
			bw.Write(r.docs)
		}
		bw.Write(binary.AppendUvarint(n[:0], uint64(tl.pos)))
		for _, off := range mine {
			_, r, _ := s.at(int(off))
			bw.Write(r.pos)
		}
	}
	clear(s.ids)
	s.terms, s.text, s.buf, s.chars = s.terms[:0], s.text[:0], s.buf[:0], strings.Builder{}
	return bw.Flush()
}

type record struct {
	delta     uint64
	docs, pos []byte
}

// at decodes the record at off in buf, and says where the next starts.
func (s *spill) at(off int) (id int32, r record, next int) {
	b := s.buf[off:]
	v, n := binary.Uvarint(b)
	id, b = int32(v), b[n:]
	r.delta, n = binary.Uvarint(b)
	b = b[n:]
	l, n := binary.Uvarint(b)
	r.docs, b = b[n:n+int(l)], b[n+int(l):]
	l, n = binary.Uvarint(b)
	r.pos, b = b[n:n+int(l)], b[n+int(l):]
	return id, r, len(s.buf) - len(b)
}

// flush writes the run to the temporary file.
func (s *spill) flush() {
	if s.err != nil || len(s.terms) == 0 {
		return
	}
	if s.f == nil {
		if s.f, s.err = os.CreateTemp("", "transcriptsite-index-"); s.err != nil {
			return
		}
		s.name = s.f.Name()
		if os.Remove(s.name) == nil { // gone with the process, whatever happens to the build
			s.name = ""
		}
	}
	if s.err = s.run(s.f); s.err != nil {
		return
	}
	end, err := s.f.Seek(0, io.SeekCurrent)
	s.ends, s.err = append(s.ends, end), err
}

// readers read the runs: those written out, or the one never written out.
func (s *spill) readers() ([]*runReader, error) {
	if len(s.ends) == 0 {
		return s.memoryRun()
	}
	s.flush()
	if s.err != nil {
		return nil, s.err
	}
	var readers []*runReader
	from := int64(0)
	for _, end := range s.ends {
		readers = append(readers, &runReader{r: bufio.NewReaderSize(io.NewSectionReader(s.f, from, end-from), 64<<10)})
		from = end
	}
	return readers, nil
}

// memoryRun reads the one run never written out, if it holds a term.
func (s *spill) memoryRun() ([]*runReader, error) {
	if len(s.terms) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	if err := s.run(&b); err != nil {
		return nil, err
	}
	return []*runReader{{r: bufio.NewReader(&b)}}, nil
}

// each calls fn with every term in order and its lists whole: the
// postings of every run one after another, each run's first document
// counted on from the run before, and the positions. fn must not keep
// docs or pos.
func (s *spill) each(fn func(t string, docs, pos []byte)) error {
	readers, err := s.readers()
	if err != nil {
		return err
	}
	var h runHeap
	for i, r := range readers {
		r.n = i
		if r.next() {
			h = append(h, r)
		} else if r.err != nil {
			return r.err
		}
	}
	heap.Init(&h)
	var t string
	var docs, pos []byte
	for len(h) > 0 {
		t = string(h[0].term)
		docs, pos = docs[:0], pos[:0]
		last := uint64(0)
		for len(h) > 0 && string(h[0].term) == t {
			r := h[0]
			first, n := binary.Uvarint(r.docs)
			docs = binary.AppendUvarint(docs, first-last)
			docs = append(docs, r.docs[n:]...)
			pos = append(pos, r.pos...)
			last = r.last
			if r.next() {
				heap.Fix(&h, 0)
			} else if r.err != nil {
				return r.err
			} else {
				heap.Pop(&h)
			}
		}
		fn(t, docs, pos)
	}
	return nil
}

// runReader reads a run's terms one at a time.
type runReader struct {
	r               *bufio.Reader
	n               int // the run's number: of equal terms, the earlier run's come first
	term, docs, pos []byte
	last            uint64
	err             error
}

func (r *runReader) next() bool {
	var err error
	if r.term, err = readList(r.r, r.term); err != nil {
		if err != io.EOF {
			r.err = err
		}
		return false
	}
	if r.last, err = binary.ReadUvarint(r.r); err == nil {
		if r.docs, err = readList(r.r, r.docs); err == nil {
			r.pos, err = readList(r.r, r.pos)
		}
	}
	if err != nil {
		if err == io.EOF { // a run ends between terms, never inside one
			err = io.ErrUnexpectedEOF
		}
		r.err = err
		return false
	}
	return true
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].term, h[j].term); c != 0 {
		return c < 0
	}
	return h[i].n < h[j].n
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// readList reads a length and that many bytes, into buf.
func readList(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	_, err = io.ReadFull(r, buf)
	return buf, err
}

func (s *spill) close() {
	if s.f != nil {
		s.f.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
	}
	s.buf, s.f, s.ids, s.terms, s.text = nil, nil, nil, nil, nil
}
