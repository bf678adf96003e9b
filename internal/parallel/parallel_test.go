package parallel

import (
	"slices"
	"testing"
)

func TestLargestFirst(t *testing.T) {
	sizes := []int64{3, 10, 3, 0, 7}
	got := LargestFirst(len(sizes), func(i int) int64 { return sizes[i] })
	if want := []int{1, 4, 0, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("LargestFirst = %v, want %v", got, want)
	}
}

// The big ones first, largest first (ties in order); then the rest in
// their order.
func TestBigFirst(t *testing.T) {
	sizes := []int64{1, 2, 40, 1, 30, 3, 1, 2, 30, 1, 1, 1}
	size := func(i int) int64 { return sizes[i] }
	got := BigFirst([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, size, 1)
	if want := []int{2, 4, 8, 0, 1, 3, 5, 6, 7, 9, 10, 11}; !slices.Equal(got, want) {
		t.Errorf("BigFirst = %v, want %v", got, want)
	}
	// With more workers, a smaller share is big.
	got = BigFirst([]int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, size, 4)
	if want := []int{2, 8, 4, 5, 7, 1, 11, 10, 9, 6, 3, 0}; !slices.Equal(got, want) {
		t.Errorf("BigFirst with 4 workers, from the last = %v, want %v", got, want)
	}
}
