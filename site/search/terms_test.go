package search

import (
	"strconv"
	"testing"
)

// Terms are numbered in the order first seen, found again by their text
// whatever their hashes do (here, every term collides with every other),
// and listed with their numbers at the end.
func TestTermTable(t *testing.T) {
	for _, tt := range []*termTable{newTermTable(), {hash: func(string) uint64 { return 7 }, slots: map[uint64]int32{}}} {
		words := []string{"retry", "re", "retry.go", "", "RETRY", "r"}
		for i := range 300 {
			words = append(words, "w"+strconv.Itoa(i))
		}
		for round := range 2 {
			for i, w := range words {
				id, added := tt.number(w)
				if int(id) != i || added != (round == 0) {
					t.Fatalf("round %d: %q is %d (new %v), want %d", round, w, id, added, i)
				}
			}
		}
		if tt.len() != len(words) {
			t.Errorf("%d terms, want %d", tt.len(), len(words))
		}
		for i, term := range tt.terms() {
			if term.t != words[i] || int(term.id) != i {
				t.Errorf("term %d: %q %d, want %q", i, term.t, term.id, words[i])
			}
		}
	}
}
