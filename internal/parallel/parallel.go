// Package parallel holds what the build's worker pools share.
package parallel

import (
	"cmp"
	"slices"
)

// LargestFirst returns 0..n-1 ordered by size, largest first, ties in
// order. Work handed out in that order keeps every core busy to the end,
// where a big file or session taken last would leave the others idle.
func LargestFirst(n int, size func(int) int64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	return order
}
