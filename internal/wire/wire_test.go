package wire

import (
	"encoding/binary"
	"errors"
	"testing"
)

// Fields read back as written; a reader that runs off its layout fails
// with its own error, reads zeros from then on, and a damaged count
// cannot ask for more items than the bytes left could hold.
func TestReader(t *testing.T) {
	bad := errors.New("bad")
	b := AppendString(binary.AppendUvarint(nil, 300), "abc")
	b = binary.BigEndian.AppendUint32(b, 0xdeadbeef)
	r := NewReader(b, bad)
	if v := r.Uvarint(); v != 300 {
		t.Errorf("uvarint %d", v)
	}
	s := r.Bytes()
	if string(s) != "abc" || cap(s) != 3 {
		t.Errorf("bytes %q, cap %d", s, cap(s))
	}
	if v := r.Uint32(); v != 0xdeadbeef || r.Len() != 0 || r.Err() != nil {
		t.Errorf("uint32 %x, %d left, %v", v, r.Len(), r.Err())
	}
	if r.Uvarint() != 0 || r.Err() != bad || r.Bytes() != nil {
		t.Errorf("past the end: %v", r.Err())
	}

	r = NewReader(append(binary.AppendUvarint(nil, 1<<40), make([]byte, 10)...), bad)
	if n := r.Count(1); n != 0 || r.Err() != bad {
		t.Errorf("a count past the data: %d, %v", n, r.Err())
	}
	r = NewReader(append(binary.AppendUvarint(nil, 5), make([]byte, 10)...), bad)
	if n := r.Count(2); n != 5 || r.Err() != nil {
		t.Errorf("a count the data holds: %d, %v", n, r.Err())
	}
	r = NewReader(binary.AppendUvarint(nil, 9), bad)
	if r.Bytes() != nil || r.Err() != bad {
		t.Error("a string longer than the data")
	}
}
