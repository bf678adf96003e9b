package cache

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"testing"
)

// A table reads back as it was written; a table cut short anywhere, with
// any byte changed, or of another layout reads as damaged, never as
// another table and never with a panic.
func TestTableRoundTrip(t *testing.T) {
	small := map[string][]byte{"": {}, "a": []byte("x"), Key("s", "1"): make([]byte, smallEntry)}
	locs := map[string]loc{}
	for i := range 300 {
		locs[Key("l", fmt.Sprint(i))] = loc{Pack: fmt.Sprintf("%d.pack", i%7), Off: int64(i) << 33, Sum: Sum{Size: int64(i) * 1000, CRC: uint32(i) * 2654435761}, Packed: int64(i)}
	}
	locs["whole"] = loc{Pack: "old.pack", Sum: Sum{Size: 5}} // Packed 0: written whole by an older build
	data := encodeTable(small, locs)
	s, l, err := decodeTable(data)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(s, small, func(a, b []byte) bool { return string(a) == string(b) }) || !maps.Equal(l, locs) {
		t.Error("the table read back differs")
	}
	if s, l, err := decodeTable(encodeTable(nil, nil)); err != nil || len(s) != 0 || len(l) != 0 {
		t.Errorf("empty table: %v, %d, %d", err, len(s), len(l))
	}
	// An entry read back cannot be grown into the next one's bytes.
	s["a"] = append(s["a"], 'y')
	if _, l2, err := decodeTable(data); err != nil || !maps.Equal(l2, locs) {
		t.Error("appending to a small entry changed the table's bytes")
	}

	for n := range len(data) {
		if _, _, err := decodeTable(data[:n]); err != errTable {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(data), err)
		}
	}
	for i := range len(data) {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x10
		if _, _, err := decodeTable(bad); err != errTable {
			t.Fatalf("byte %d changed: %v", i, err)
		}
	}
	// A well-formed checksum over fields that do not add up.
	body := append([]byte(tableMagic), binary.AppendUvarint(nil, 1<<40)...)
	if _, _, err := decodeTable(binary.BigEndian.AppendUint32(body, crc32.Checksum(body, castagnoli))); err != errTable {
		t.Errorf("a count past the data: %v", err)
	}
}

func FuzzDecodeTable(f *testing.F) {
	f.Add(encodeTable(map[string][]byte{"k": []byte("v")}, map[string]loc{"l": {Pack: "p", Off: 3, Sum: Sum{Size: 4, CRC: 5}, Packed: 6}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The checksum is made to match, so the fields themselves are read.
		if len(data) >= 4 {
			n := len(data) - 4
			binary.BigEndian.PutUint32(data[n:], crc32.Checksum(data[:n], castagnoli))
		}
		small, locs, err := decodeTable(data)
		if err != nil {
			return
		}
		if s, l, err := decodeTable(encodeTable(small, locs)); err != nil || len(s) != len(small) || !maps.Equal(l, locs) {
			t.Errorf("a table read does not read back: %v", err)
		}
	})
}
