package cache

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/transcriptsite/transcriptsite/internal/wire"
)

// tableFile is the table's file in the store's dir: tableMagic, the
// packs' names, the small entries, and where each packed entry is, in
// uvarints and length-prefixed strings, then the CRC-32C of all that in
// four bytes. Every build reads it and a build that changes anything
// writes it: gob took 22 and 43 ms to read tables of 11,000 and 14,000
// entries (1,000 generated sessions, the real sessions x20), a tenth of a
// rebuild with nothing changed, and grows with the site. The layout is
// package wire's, as a prepared search session's is.
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
		b = wire.AppendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(small)))
	for k, v := range small {
		b = wire.AppendString(wire.AppendString(b, k), string(v))
	}
	b = binary.AppendUvarint(b, uint64(len(locs)))
	for k, l := range locs {
		b = wire.AppendString(b, k)
		b = binary.AppendUvarint(b, packs[l.Pack])
		b = binary.AppendUvarint(b, uint64(l.Off))
		b = binary.AppendUvarint(b, uint64(l.Size))
		b = binary.BigEndian.AppendUint32(b, l.CRC)
		b = binary.AppendUvarint(b, uint64(l.Packed))
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeTable reads what encodeTable laid out; errTable when data is
// anything else, cut short or damaged.
func decodeTable(data []byte) (small map[string][]byte, locs map[string]loc, err error) {
	n := len(data) - 4
	if n < len(tableMagic) || string(data[:len(tableMagic)]) != tableMagic ||
		crc32.Checksum(data[:n], castagnoli) != binary.BigEndian.Uint32(data[n:]) {
		return nil, nil, errTable
	}
	r := wire.NewReader(data[len(tableMagic):n], errTable)
	names := make([]string, r.Count(1))
	for i := range names {
		names[i] = string(r.Bytes())
	}
	nsmall := r.Count(2)
	small = make(map[string][]byte, nsmall)
	for range nsmall {
		k := string(r.Bytes())
		small[k] = r.Bytes() // the table's bytes, which the store keeps anyway
	}
	nlocs := r.Count(9)
	locs = make(map[string]loc, nlocs)
	for range nlocs {
		k := string(r.Bytes())
		p := r.Uvarint()
		l := loc{Off: int64(r.Uvarint())}
		l.Size = int64(r.Uvarint())
		l.CRC = r.Uint32()
		l.Packed = int64(r.Uvarint())
		if p >= uint64(len(names)) || r.Err() != nil {
			return nil, nil, errTable
		}
		l.Pack = names[p]
		locs[k] = l
	}
	if r.Err() != nil || r.Len() > 0 {
		return nil, nil, errTable
	}
	return small, locs, nil
}
