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
