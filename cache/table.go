package cache

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// tableFile is the table's file in the store's dir: tableMagic, the
// packs' names, the small entries, and where each packed entry is, in
// uvarints and length-prefixed strings, then the CRC-32C of all that in
// four bytes. Every build reads it and a build that changes anything
// writes it: gob took 22-43 ms to read one of 14,000 entries (the real
// sessions x20), a tenth of a rebuild with nothing changed, and grows with
// the site.
const tableFile = "table"

// tableMagic opens a table file; another layout gets another.
const tableMagic = "tsc1"

var errTable = errors.New("not a table")

// encodeTable lays out the table.
func encodeTable(small map[string][]byte, locs map[string]loc) []byte {
	packs := map[string]uint64{}
	var names []string
	size := len(tableMagic) + 3*binary.MaxVarintLen64 + 4
	for k, v := range small {
		size += len(k) + len(v) + 2*binary.MaxVarintLen64
	}
	for k, l := range locs {
		if _, ok := packs[l.Pack]; !ok {
			packs[l.Pack] = uint64(len(names))
			names = append(names, l.Pack)
			size += len(l.Pack) + binary.MaxVarintLen64
		}
		size += len(k) + 5*binary.MaxVarintLen64 + 4
	}
	b := make([]byte, 0, size)
	b = append(b, tableMagic...)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(small)))
	for k, v := range small {
		b = appendString(appendString(b, k), string(v))
	}
	b = binary.AppendUvarint(b, uint64(len(locs)))
	for k, l := range locs {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, packs[l.Pack])
		b = binary.AppendUvarint(b, uint64(l.Off))
		b = binary.AppendUvarint(b, uint64(l.Size))
		b = binary.BigEndian.AppendUint32(b, l.CRC)
		b = binary.AppendUvarint(b, uint64(l.Packed))
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodeTable reads what encodeTable laid out; errTable when data is
// anything else, cut short or damaged.
func decodeTable(data []byte) (small map[string][]byte, locs map[string]loc, err error) {
	n := len(data) - 4
	if n < len(tableMagic) || string(data[:len(tableMagic)]) != tableMagic ||
		crc32.Checksum(data[:n], castagnoli) != binary.BigEndian.Uint32(data[n:]) {
		return nil, nil, errTable
	}
	r := tableReader{data: data[len(tableMagic):n]}
	names := make([]string, r.count(1))
	for i := range names {
		names[i] = r.string()
	}
	nsmall := r.count(2)
	small = make(map[string][]byte, nsmall)
	for range nsmall {
		k := r.string()
		small[k] = r.bytes() // the table's bytes, which the store keeps anyway
	}
	nlocs := r.count(9)
	locs = make(map[string]loc, nlocs)
	for range nlocs {
		k := r.string()
		p := r.uvarint()
		l := loc{Off: int64(r.uvarint())}
		l.Size = int64(r.uvarint())
		l.CRC = r.uint32()
		l.Packed = int64(r.uvarint())
		if p >= uint64(len(names)) || r.err != nil {
			return nil, nil, errTable
		}
		l.Pack = names[p]
		locs[k] = l
	}
	if r.err != nil || len(r.data) > 0 {
		return nil, nil, errTable
	}
	return small, locs, nil
}

// tableReader reads a table's fields; past the end, or in a field
// that is not one, it reads zeros and sets err.
type tableReader struct {
	data []byte
	err  error
}

func (r *tableReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.err, r.data = errTable, nil
		return 0
	}
	r.data = r.data[n:]
	return v
}

// count reads how many items follow, each of at least min bytes: no more
// than what is left could hold, so that a damaged count allocates nothing.
func (r *tableReader) count(min int) int {
	v := r.uvarint()
	if v > uint64(len(r.data)/min) {
		r.err, r.data = errTable, nil
		return 0
	}
	return int(v)
}

func (r *tableReader) string() string { return string(r.bytes()) }

// bytes reads a length-prefixed field, as a slice of the table's bytes
// that an append cannot write past.
func (r *tableReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.data)) {
		r.err, r.data = errTable, nil
		return nil
	}
	b := r.data[:n:n]
	r.data = r.data[n:]
	return b
}

func (r *tableReader) uint32() uint32 {
	if len(r.data) < 4 {
		r.err, r.data = errTable, nil
		return 0
	}
	v := binary.BigEndian.Uint32(r.data)
	r.data = r.data[4:]
	return v
}
