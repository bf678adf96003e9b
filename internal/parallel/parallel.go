// Package parallel holds what the build's worker pools share.
package parallel

import (
	"cmp"
	"context"
	"slices"
	"sync"
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

// Run calls fn for each index of order, in that order, on workers
// goroutines, until ctx is done; it returns when every call it started has
// returned.
func Run(ctx context.Context, workers int, order []int, fn func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range work {
				fn(i)
			}
		})
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
}
