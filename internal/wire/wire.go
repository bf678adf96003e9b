// Package wire writes and reads the binary layouts of the cache's table and
// of a session prepared for the search index: uvarints, and byte strings
// after their length.
package wire

import "encoding/binary"

// AppendString appends s after its length.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// A Reader reads fields off a layout and fails once: past its end, or on a
// field that is not one, it reads zeros from then on and Err is the error
// it was made with.
type Reader struct {
	b   []byte
	bad error
	err error
}

// NewReader reads b; bad is the error it gives when b is not what it reads.
func NewReader(b []byte, bad error) *Reader { return &Reader{b: b, bad: bad} }

// Err is nil, or the error the Reader was made with once it failed.
func (r *Reader) Err() error { return r.err }

// Len is how many bytes are left.
func (r *Reader) Len() int { return len(r.b) }

// Fail makes the Reader fail: what it read is not what it should be.
func (r *Reader) Fail() {
	if r.err == nil {
		r.err = r.bad
	}
	r.b = nil
}

func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Count reads how many items follow, each of at least min bytes: no more
// than what is left could hold, so that a damaged count allocates nothing.
func (r *Reader) Count(min int) int {
	v := r.Uvarint()
	if v > uint64(len(r.b)/min) {
		r.Fail()
		return 0
	}
	return int(v)
}

// Bytes reads a byte string after its length, as a slice of the layout
// that an append cannot write past.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.Fail()
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

// Uint32 reads four bytes, big-endian.
func (r *Reader) Uint32() uint32 {
	if len(r.b) < 4 {
		r.Fail()
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}
