package heap

import (
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
)

// faults is how many pages the process has faulted in so far.
func faults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return int64(ru.Minflt)
}

var sink [][]*int

// fill allocates n bytes in objects of 8 KB that hold pointers, each page
// written, as a build's heap is, and keeps them.
func fill(n int) {
	var x int
	for range n / (8 << 10) {
		o := make([]*int, 1024)
		o[0], o[512] = &x, &x
		sink = append(sink, o)
	}
}

// TestReserve allocates 48 MB after reserving 64 MB, several times over
// with a collection and a pause between, and counts the page faults: a handful, where
// the same allocations into memory given back to the system take one a
// page.
func TestReserve(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the collector is Go's to pace")
	}
	if populate(make([]byte, 1<<20)) != nil {
		t.Skip("the kernel cannot fill pages in one call (MADV_POPULATE_WRITE, Linux 5.14)")
	}
	Pace()
	debug.FreeOSMemory()
	const n = 48 << 20
	pages := int64(n / os.Getpagesize())

	release := Reserve(64 << 20)
	before := faults(t)
	for range 4 {
		fill(n)
		sink = nil
		runtime.GC()
		time.Sleep(200 * time.Millisecond) // for the scavenger, which must keep what is reserved
	}
	reserved := faults(t) - before
	release()

	debug.FreeOSMemory()
	before = faults(t)
	fill(n)
	sink = nil
	fresh := faults(t) - before
	t.Logf("faults for 4 x %d pages: %d with 64 MB reserved; %d for 1 x without", pages, reserved, fresh)
	if fresh < pages/2 {
		t.Fatalf("%d faults for %d fresh pages: the test does not see them", fresh, pages)
	}
	if reserved > pages/4 {
		t.Errorf("%d faults for 4 x %d pages with 64 MB reserved, want under %d", reserved, pages, pages/4)
	}
}
