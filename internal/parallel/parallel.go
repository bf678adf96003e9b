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

// BigFirst returns order with the big ones first, largest first, and the
// rest as they were: those of more than 1/(16·workers) of the total size,
// so that none left for the end keeps one core busy long after the
// others. Work that is best finished in order (the site's search index
// appends sessions in the site's order, and holds or makes again those
// finished before their turn) then mostly is, where LargestFirst would
// finish the site's first session among the last.
func BigFirst(order []int, size func(int) int64, workers int) []int {
	var total int64
	for _, i := range order {
		total += size(i)
	}
	big := func(i int) bool { return size(i)*16*int64(max(workers, 1)) > total }
	first := slices.DeleteFunc(slices.Clone(order), func(i int) bool { return !big(i) })
	slices.SortStableFunc(first, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	return append(first, slices.DeleteFunc(slices.Clone(order), big)...)
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
