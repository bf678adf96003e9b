// Package heap paces the garbage collector for a build, and lets a build
// fault in at once the memory its heap is about to grow into.
//
// A build's heap grows to what is live plus the growth the collector
// allows, and every 4 KB page of that is first touched through a page
// fault. On a virtual machine a fault can cost 5-20 µs (measured on ours:
// a quarter of a cold build's CPU), where the kernel fills the same pages
// for about 1 µs each when asked for all of them in one call. Reserve asks
// it so, as the JVM's AlwaysPreTouch does, and keeps the collector from
// handing those pages back before the build is done.
package heap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Limit is the heap the collector aims to stay under. By default Go lets
// the heap grow to twice what is live, so a build holding a 500 MB session
// would pass 1 GB; near this soft limit it collects sooner instead.
// GOMEMLIMIT overrides it.
const Limit = 800 << 20

// headroom is what the heap may grow by past what is live before a
// collection, at least: Go's default, as much again as is live, has a
// build that keeps little (the real Claude sessions x20 keep 80 MB) collect
// every few MB allocated, a tenth of its CPU. Past headroom of live data
// Go's pace is kept, so that big builds stay within Limit.
const headroom = 256 << 20

// block is the size of the blocks Reserve fills: one chunk of Go's page
// allocator.
const block = 4 << 20

// minReserve is the least Reserve fills: below it, the collection that
// frees the block costs more than the faults it saves.
const minReserve = 16 << 20

// pacer holds the collector's pace, shared by Pace's callback and Reserve.
var pacer struct {
	sync.Mutex
	on       bool  // Pace paces the collector: neither GOGC nor GOMEMLIMIT is set
	percent  int   // the GOGC in force
	reserved int64 // bytes Reserve filled, until released
}

// Pace paces the collector for the rest of the process: after each
// collection, from what it left live (see pace). GOGC or GOMEMLIMIT in the
// environment leave it to Go.
func Pace() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	pacer.Lock()
	pacer.on, pacer.percent = true, 400 // the heap is small until the first collection
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(Limit)
	pacer.Unlock()
	afterGC(func() {
		pacer.Lock()
		defer pacer.Unlock()
		pace(live())
	})
}

// live is what the last collection left live, in bytes.
func live() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// growth is what the heap may grow by past n bytes live before the next
// collection: headroom or what is live, whichever is more, but no more
// than four times what is live.
func growth(n int64) int64 { return min(4*n, max(headroom, n)) }

// pace sets the collector's pace for n bytes live; the pacer's lock is
// held. It lets the heap grow by growth(n), or by what is reserved when
// that is more, and sets the soft limit to a quarter more than what is
// live: under a fixed limit, a build whose live data outgrew it would
// collect without pause. Once what is live is past Limit the heap cannot
// stay near it anyway, and the limit goes back to Go's own pace, twice
// what is live, which costs the least time.
//
// When what is reserved sets GOGC past 400 (while little is live), the
// limit is half as much again as the goal instead. pace runs when the
// collector sweeps the object whose cleanup calls it, which can be late in
// a cycle: until then a GOGC set from the last, smaller live heap (a few
// MB when the parse starts, so a GOGC in the thousands) would let the
// heap grow far past the reserve.
func pace(n int64) {
	g := max(growth(n), pacer.reserved)
	p := int(min(max(100, g*100/max(n, 1)), maxPercent))
	if p != pacer.percent {
		debug.SetGCPercent(p)
		pacer.percent = p
	}
	switch {
	case p > 400: // only what is reserved sets it past four times
		debug.SetMemoryLimit((n + g) * 3 / 2)
	case n > Limit:
		debug.SetMemoryLimit(2 * n)
	default:
		debug.SetMemoryLimit(max(Limit, n*5/4))
	}
}

// maxPercent keeps GOGC within an int32 however little is live.
const maxPercent = 1 << 30

// Reserve faults in, in one call, n bytes of the heap the caller is about
// to allocate (at most headroom), and keeps the collector from handing
// those pages back to the system until release is called. It does nothing
// where Pace does not pace the collector, or where the system cannot fill
// pages in one call.
func Reserve(n int64) (release func()) {
	n = min(n, headroom)
	pacer.Lock()
	defer pacer.Unlock()
	if !pacer.on || pacer.reserved > 0 || n < minReserve {
		return func() {}
	}
	// Blocks of n bytes in all, their pages filled by the kernel, then
	// dropped: the collection that frees them leaves those pages free in
	// the heap, where the next allocations take their memory from. No
	// collection runs while they are held: it would find them live. They
	// are small so that only those the heap had used before are cleared by
	// Go (a block is, whole, when part of it was used), not the fresh
	// pages, which clearing would fault in one by one.
	pacer.reserved, pacer.percent = n, -1
	debug.SetGCPercent(-1)
	blocks := make([][]byte, n/block)
	var err error
	for i := range blocks {
		blocks[i] = make([]byte, block)
		if err = populate(blocks[i]); err != nil {
			break
		}
	}
	runtime.KeepAlive(blocks)
	if err != nil {
		pacer.reserved = 0
		pace(live())
		return func() {}
	}
	runtime.GC()
	pace(live())
	return sync.OnceFunc(func() {
		pacer.Lock()
		defer pacer.Unlock()
		pacer.reserved = 0
		pace(live())
	})
}

// afterGC calls fn after every garbage collection, from the cleanup of an
// object that each call leaves unreachable.
func afterGC(fn func()) {
	type sentinel struct{ _ *int } // holds a pointer: never a tiny allocation
	runtime.AddCleanup(&sentinel{}, func(struct{}) {
		fn()
		afterGC(fn)
	}, struct{}{})
}
