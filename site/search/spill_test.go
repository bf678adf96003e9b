package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A run keeps its terms in chunks: terms past a chunk's end, and one
// longer than a chunk, read back as themselves, and a term added again
// finds its lists.
func TestSpillKeepsTermsAcrossChunks(t *testing.T) {
	want := []string{strings.Repeat("x", termChunk+1)}
	for i := range 3 * termChunk / 8 {
		want = append(want, fmt.Sprintf("t%07d", i))
	}
	var s spill
	for doc := range 2 {
		for i, w := range want {
			s.add(w, doc, 0, nil, []byte{byte(i), byte(doc)}, 0)
		}
	}
	got := map[string][]byte{}
	err := s.each(func(term string, docs, pos []byte) {
		got[term] = bytes.Clone(pos)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d terms read back, want %d", len(got), len(want))
	}
	for i, w := range want {
		if p := got[w]; !bytes.Equal(p, []byte{byte(i), 0, byte(i), 1}) {
			t.Errorf("term %d (%.12q…): positions %v", i, w, p)
		}
	}
}
