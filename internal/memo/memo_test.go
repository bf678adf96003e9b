package memo

import (
	"strings"
	"testing"
)

// A memo stays within its bound however much goes through it, and keeps
// what was used last.
func TestBound(t *testing.T) {
	m := New[int](64<<20, func(v string) int { return len(v) })
	big := strings.Repeat("x", 1<<20)
	for i := range 200 {
		m.Put(i, big)
	}
	if held := (len(m.cur) + len(m.old)) << 20; held > m.limit {
		t.Errorf("the memo holds %d MB, over its bound of %d MB", held>>20, m.limit>>20)
	}
	if _, ok := m.Get(199); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := m.Get(0); ok {
		t.Error("the oldest entry is still held")
	}
	m.Put(-1, strings.Repeat("x", 9<<20))
	if _, ok := m.Get(-1); ok {
		t.Error("a value of over an eighth of the bound was kept")
	}
}

// A hit in the old generation moves to the new one, so that what is used
// often survives the next turn of generations.
func TestHitsStay(t *testing.T) {
	m := New[int](8, func(string) int { return 1 })
	m.Put(0, "often")
	for i := 1; i < 20; i++ {
		if _, ok := m.Get(0); !ok {
			t.Fatalf("the entry used every time was evicted after %d others", i-1)
		}
		m.Put(i, "once")
	}
}

// Drop empties every memo, and they fill again after.
func TestDrop(t *testing.T) {
	a, b := New[int](1<<20, func(string) int { return 1 }), New[string](1<<20, func(int) int { return 1 })
	a.Put(1, "one")
	b.Put("two", 2)
	Drop()
	if _, ok := a.Get(1); ok {
		t.Error("a memo kept a value after Drop")
	}
	if _, ok := b.Get("two"); ok {
		t.Error("another memo kept a value after Drop")
	}
	a.Put(1, "one")
	if v, ok := a.Get(1); !ok || v != "one" {
		t.Error("a memo does not fill again after Drop")
	}
}
