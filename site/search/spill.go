package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"slices"
)

// spill holds the index's lists from Append to Write, one record per term
// of each session: in memory while they are few, past spillMemory in a
// temporary file, so that a big site's index is never in memory whole.
type spill struct {
	buf  []byte
	f    *os.File
	name string // the file's name, while it has one to remove
	err  error
}

// spillMemory and passBytes are variables for the tests to make small.
var spillMemory = 32 << 20

// record adds the lists of term id in one session: its postings, the
// first document's delta apart, and its positions.
func (s *spill) record(id int32, delta uint64, docs, pos []byte) {
	s.buf = binary.AppendUvarint(s.buf, uint64(id))
	s.buf = binary.AppendUvarint(s.buf, delta)
	s.buf = binary.AppendUvarint(s.buf, uint64(len(docs)))
	s.buf = append(s.buf, docs...)
	s.buf = binary.AppendUvarint(s.buf, uint64(len(pos)))
	s.buf = append(s.buf, pos...)
	if len(s.buf) >= spillMemory {
		s.flush()
	}
}

func (s *spill) flush() {
	if s.err != nil || len(s.buf) == 0 {
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
	_, s.err = s.f.Write(s.buf)
	s.buf = s.buf[:0]
}

// each calls fn with every record, in the order they were added.
func (s *spill) each(fn func(id int32, delta uint64, docs, pos []byte)) error {
	if s.f == nil {
		return s.read(bufio.NewReader(bytes.NewReader(s.buf)), fn)
	}
	s.flush()
	if s.err != nil {
		return s.err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return s.read(bufio.NewReaderSize(s.f, 1<<20), fn)
}

func (s *spill) read(r *bufio.Reader, fn func(id int32, delta uint64, docs, pos []byte)) error {
	var docs, pos []byte
	for {
		id, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		delta, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		if docs, err = readList(r, docs); err != nil {
			return err
		}
		if pos, err = readList(r, pos); err != nil {
			return err
		}
		fn(int32(id), delta, docs, pos)
	}
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
	s.buf, s.f = nil, nil
}
