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
	RunApart(ctx, workers, order, func(i int) int { return i }, fn)
}

// reach is how far past the next index RunApart looks for one whose key no
// call in progress has.
const reach = 256

// RunApart is Run, but a worker takes the first index, among the next
// reach, whose key no call in progress has, or the next when each has.
// Work whose keys say it is likely the same (a session and its copy) is so
// done one after the other, where the second finds what the first made,
// rather than at once, where one core waits on what the other is making.
func RunApart[K comparable](ctx context.Context, workers int, order []int, key func(int) K, fn func(i int)) {
	type item struct {
		i int
		k K
	}
	var (
		mu   sync.Mutex
		left = make([]item, len(order))
		busy = map[K]int{} // calls in progress, by key
	)
	for n, i := range order {
		left[n] = item{i, key(i)}
	}
	take := func() (item, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(left) == 0 || ctx.Err() != nil {
			return item{}, false
		}
		at := 0
		for n, it := range left[:min(len(left), reach)] {
			if busy[it.k] == 0 {
				at = n
				break
			}
		}
		// Taken out by moving those it passed one on: a few at most.
		it := left[at]
		copy(left[1:at+1], left[:at])
		left = left[1:]
		busy[it.k]++
		return it, true
	}
	done := func(it item) {
		mu.Lock()
		defer mu.Unlock()
		if busy[it.k]--; busy[it.k] == 0 {
			delete(busy, it.k)
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it, ok := take(); ok; it, ok = take() {
				fn(it.i)
				done(it)
			}
		})
	}
	wg.Wait()
}
