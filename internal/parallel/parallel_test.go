package parallel

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
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

// started runs RunApart on order with workers, fn holding each call until
// as many as hold have started; it returns the indices in the order their
// calls started, and fails when hold calls never run at once.
func started(t *testing.T, workers, hold int, order []int, key func(int) int) []int {
	t.Helper()
	var (
		mu  sync.Mutex
		got []int
	)
	all := make(chan struct{})
	RunApart(context.Background(), workers, order, key, func(i int) {
		mu.Lock()
		got = append(got, i)
		if len(got) == hold {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(5 * time.Second):
			t.Errorf("call %d waited for %d calls at once", i, hold)
		}
	})
	return got
}

// Two workers take work of two keys: each the first of one key, though the
// second of the first key comes before in order.
func TestRunApart(t *testing.T) {
	got := started(t, 2, 2, []int{0, 1, 2, 3}, func(i int) int { return i / 2 })
	if !slices.Equal(got[:2], []int{0, 2}) && !slices.Equal(got[:2], []int{2, 0}) {
		t.Errorf("first two started: %v, want 0 and 2", got[:2])
	}
	if slices.Sort(got); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("calls: %v, want each index once", got)
	}
}

// When every index left has the key of a call in progress, the next is
// taken all the same: no worker idles for a key.
func TestRunApartSameKey(t *testing.T) {
	got := started(t, 3, 3, []int{4, 5, 6}, func(int) int { return 0 })
	if slices.Sort(got); !slices.Equal(got, []int{4, 5, 6}) {
		t.Errorf("calls: %v, want 4, 5 and 6", got)
	}
}

// Work past reach is not looked at: order keeps a worker near the front.
func TestRunApartReach(t *testing.T) {
	order := make([]int, reach+2)
	for i := range order {
		order[i] = i
	}
	// All but the last share a key.
	got := started(t, 2, 2, order, func(i int) int { return i / (reach + 1) })
	if !slices.Equal(got[:2], []int{0, 1}) && !slices.Equal(got[:2], []int{1, 0}) {
		t.Errorf("first two started: %v, want 0 and 1", got[:2])
	}
}
